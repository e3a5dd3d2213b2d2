package dev.sluice.core.stats;

/**
 * One key of a {@link KeySummary}: it was denied between {@code count - error} and {@code count}
 * times.
 *
 * @param key the key (the subject of the check, e.g. an IP address)
 * @param count an upper bound on its denials: never less than the truth
 * @param error how much {@code count} may exceed the truth
 */
public record KeyCount(String key, long count, long error) {}
