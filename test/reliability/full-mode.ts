// Loaded by test/reliability/.mocharc.json (npm run test:reliability): the full-size fault suite, with figures,
// run once per caption-matching mode of the emulator (SMSGW_CAPTION_MATCH, see helpers.ts).
process.env.SMSGW_RELIABILITY_FULL ??= '1';
process.env.SMSGW_FIGURES ??= '1';
console.log(
  `\n  reliability suite, emulator caption matching: ${process.env.SMSGW_CAPTION_MATCH || 'exact'}`,
);
