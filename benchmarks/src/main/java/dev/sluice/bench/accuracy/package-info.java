/**
 * The accuracy simulator: seeded trace generators ({@link
 * dev.sluice.bench.accuracy.TraceGenerator}), a replayer that judges each algorithm against the
 * exact sliding log ({@link dev.sluice.bench.accuracy.Replayer}) and the command that writes {@code
 * docs/accuracy.md} ({@link dev.sluice.bench.accuracy.AccuracyReport}).
 */
package dev.sluice.bench.accuracy;
