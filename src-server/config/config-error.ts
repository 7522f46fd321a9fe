/** A bad setting stops start-up; the message names the key. */
export class ConfigError extends Error {
  constructor(
    readonly key: string,
    /** The message without the key, for callers that name the key their own way (the console's Settings). */
    readonly problem: string,
  ) {
    super(`config ${key}: ${problem}`);
    this.name = "ConfigError";
  }
}
