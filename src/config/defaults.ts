/** The config file read when --config is not given, if it exists in the working folder. */
export const DEFAULT_CONFIG = 'chatprobe.config.json';
