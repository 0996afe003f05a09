/**
 * The `model` of results from target-scope probes, which run once per endpoint. Its own module, free of
 * zod: the output boundary names it, and `--help` and `--version` load the boundary without the models.
 */
export const ENDPOINT = '(endpoint)';
