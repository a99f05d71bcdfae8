// Loaded by test/reliability/.mocharc.json (npm run test:reliability): the full-size fault suite, with figures.
process.env.SMSGW_RELIABILITY_FULL ??= '1';
process.env.SMSGW_FIGURES ??= '1';
