package dev.sluice.bench.load;

/**
 * One performance target of issue 7 and how this run did against it.
 *
 * @param id P1..P7
 * @param target the target in words
 * @param measured the measured figure in words
 * @param verdict "met", "MISSED: ..." or "not run: ..."
 */
public record TargetRow(String id, String target, String measured, String verdict) {}
