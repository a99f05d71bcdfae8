export { analyzeText } from './analyze';
export type { TextAnalysis, TextEncoding } from './analyze';
export { GSM7_BASIC_TABLE, GSM7_EXTENSION_TABLE, gsm7Septets, isGsm7 } from './gsm7';
