package dev.sluice.core.stats;

/**
 * One rule's decisions per second, oldest first: {@code allowed[i]} decisions were allowed in the
 * i-th second of the series, and so on. Inline policies share the rule {@code ~inline}; rules past
 * the number a node tracks share {@code ~other}.
 *
 * @param rule the rule's name
 * @param allowed decisions allowed (shadow denials not included)
 * @param denied decisions denied
 * @param shadowDenied decisions a shadow rule would have denied (the caller was told "allowed")
 * @param timed single checks of the rule that went to a key's owner and were timed (answers from a
 *     lease or a cached denial, and checks in batches, are not)
 * @param meanMicros their mean latency, in microseconds rounded up (0 without any)
 */
public record RuleRates(
    String rule, int[] allowed, int[] denied, int[] shadowDenied, int[] timed, int[] meanMicros) {

  /** Decisions of every outcome over the series. */
  public long total() {
    long sum = 0;
    for (int i = 0; i < allowed.length; i++) {
      sum += (long) allowed[i] + denied[i] + shadowDenied[i];
    }
    return sum;
  }
}
