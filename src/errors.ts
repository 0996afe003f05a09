/** A run that could not test anything (bad options, 401 on /models, no model): exit code 2. */
export class CannotTestError extends Error {
  readonly exitCode = 2;
  constructor(
    message: string,
    readonly advice?: string,
  ) {
    super(message);
    this.name = 'CannotTestError';
  }
}
