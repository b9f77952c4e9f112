/** How the tour's steps print: who typed what, and what the bot answered, as one transcript. */

/** Printers of the transcript's three kinds of lines. */
export interface Transcript {
  /** Someone types in the server: `who › what`, after a blank line. */
  readonly say: (who: string, what: string) => void;
  /** The bot's answer, continuation lines indented under it. */
  readonly bot: (text: string) => void;
  /** Anything else, as given. */
  readonly print: (line: string) => void;
}

/** A transcript written line by line to `print`. */
export function transcript(print: (line: string) => void): Transcript {
  return {
    say: (who, what) => print(`\n${who} › ${what}`),
    bot: (text) => print(`  bot › ${text.replaceAll('\n', '\n        ')}`),
    print,
  };
}
