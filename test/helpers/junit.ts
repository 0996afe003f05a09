import { readFileSync } from 'node:fs';
import { XMLParser } from 'fast-xml-parser';
import { validateXML } from 'xmllint-wasm';
import { ROOT } from './cli.js';

const xsd = readFileSync(`${ROOT}test/fixtures/junit-jenkins.xsd`, 'utf8');

/** The problems of a junit.xml against the Jenkins JUnit schema (libxml2's validator), or [] when it conforms. */
export async function junitProblems(xml: string): Promise<string[]> {
  const result = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [{ fileName: 'junit-jenkins.xsd', contents: xsd }], stream: true, maxMemoryPages: 8192 });
  return result.valid ? [] : result.errors.map((e) => e.rawMessage);
}

export interface JunitCase {
  name: string;
  classname: string;
  time: string;
  failure?: { type: string; message: string };
  error?: { type: string; message: string };
  skipped?: { message: string };
  'system-out'?: string;
}

export interface JunitSuite {
  name: string;
  tests: string;
  failures: string;
  errors: string;
  skipped: string;
  time: string;
  timestamp: string;
  properties: { property: { name: string; value: string }[] };
  testcase?: JunitCase[];
}

/** A junit.xml checked against the schema, then parsed with every list as an array. */
export async function parseJunit(xml: string): Promise<{ testsuites: { tests: string; failures: string; errors: string; time: string; testsuite: JunitSuite[] } }> {
  const problems = await junitProblems(xml);
  if (problems.length > 0) throw new Error(`junit.xml does not conform to the Jenkins JUnit schema: ${problems.slice(0, 5).join('; ')}`);
  return new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', parseAttributeValue: false, isArray: (n) => ['testsuite', 'testcase', 'property'].includes(n) }).parse(xml);
}

/** A suite's properties as a record. */
export const propsOf = (s: JunitSuite): Record<string, string> => Object.fromEntries(s.properties.property.map((p) => [p.name, p.value]));
