/**
 * How much of a run the human-facing outputs show. The number of models is the server's to choose (a
 * gateway may list 100,000), so every writer that draws a model per column, or a line per model or per
 * finding, shows a bounded part in full and counts the rest in one line that says where the whole is
 * (report.json, which keeps every model and every cell). A cut of ours is said as ours.
 */

/**
 * Models drawn as matrix columns (matrix.md, the step summary, the console): a Markdown table or a terminal
 * of more columns than this is not read by anyone, and drawing it costs models × probes cells.
 */
export const MATRIX_MODELS = 100;

/** Lines a list of models or of findings shows before the rest are counted in one line (matrix.md, console). */
export const LISTED_LINES = 1000;

/**
 * report.html draws the matrix of its first PAGE_MODELS models and counts the rest: a page of 200 models ×
 * 60 probes is 12,000 cells, which Chromium lays out in well under a second; 100,000 models made a 148 MB
 * page it could not load.
 */
export const PAGE_MODELS = 200;

/**
 * Characters of recorded exchanges report.html embeds (its cells' evidence): past this the page names the
 * exchanges it left out and exchanges.har has them all. With the matrix above, a page stays under ~40 MB.
 */
export const PAGE_EXCHANGE_CHARS = 24 * 1024 * 1024;
