package dev.sluice.core.decision;

import java.util.List;

/**
 * The constants of the lease policy, in one place: what a holder asks for, what an owner grants,
 * and how the holder keeps and gives back its leases. docs/algorithms.md, "Lease tuning", shows
 * them in a table generated from {@link #rows()} ({@code LeaseTuningDocTest}); the lease-policy
 * simulator (benchmarks) replays traces under other values.
 *
 * @param horizonNanos the longest a rate is projected over: a lease to the end of a longer window
 *     is asked for as if it lasted this long, and one that answered nothing for this long is given
 *     back before its end
 * @param minExpectedAnswers the requests a lease must be expected to answer before a key asks for
 *     one that ends with its window unused (never sent back)
 * @param minAnswersIfReturned the same for a short lease, which is sent back when unused
 * @param minAnswersPerHorizon the same, per {@code horizonNanos}, for a lease to the end of a
 *     window longer than that, which is sent back when it answered nothing for that long
 * @param shortLeaseAnswers the requests a short lease must be expected to answer for the owner to
 *     grant one where a lease to the end of the window would do (a hot key's)
 * @param headroomPercent what an ask is sized to, in percent of the requests the rate expects
 * @param maxLeasePermits the most requests' worth of permits one lease holds
 * @param shortShare the most of what is left after the request that a short or paced lease takes,
 *     as a divisor
 * @param windowShare the same for a lease to the end of the window
 * @param renewAheadMinPermits the smallest lease renewed ahead of its end
 * @param maxTrackedKeys the keys a holder keeps rates of, at most
 */
public record LeaseTuning(
    long horizonNanos,
    long minExpectedAnswers,
    long minAnswersIfReturned,
    long minAnswersPerHorizon,
    long shortLeaseAnswers,
    long headroomPercent,
    long maxLeasePermits,
    long shortShare,
    long windowShare,
    long renewAheadMinPermits,
    int maxTrackedKeys) {

  private static final long SECOND_NANOS = 1_000_000_000L;

  /** The tuning every holder and owner uses. */
  public static final LeaseTuning DEFAULT =
      new LeaseTuning(SECOND_NANOS, 1, 1, 2, 8, 150, 65_536, 2, 4, 64, 32_768);

  /** How many requests a rate of {@code perSecond} expects within {@code nanos}, rounded down. */
  public static long expected(long perSecond, long nanos) {
    return (long) (perSecond * (nanos / (double) SECOND_NANOS));
  }

  /**
   * The permits an ask of {@code perSecond} is granted for a lease of {@code lifetimeNanos} at most
   * (before the share of what is left): the rate over the lifetime, with the headroom, rounded up,
   * at least 1 and at most {@link #maxLeasePermits}.
   */
  public long permitsFor(long perSecond, long lifetimeNanos) {
    double expected = perSecond * (lifetimeNanos / (double) SECOND_NANOS);
    long sized = (long) Math.ceil(expected * headroomPercent / 100.0);
    return Math.max(1, Math.min(maxLeasePermits, sized));
  }

  /** One row of the generated table: a component, its value, what it means. */
  public record Row(String name, String value, String meaning) {}

  /** The table of docs/algorithms.md, "Lease tuning". */
  public List<Row> rows() {
    return List.of(
        new Row(
            "horizonNanos",
            seconds(horizonNanos),
            "the longest a key's rate is projected over: a lease to the end of a longer window is"
                + " asked for as if it lasted this long, and given back when it answered nothing"
                + " for this long"),
        new Row(
            "minExpectedAnswers",
            Long.toString(minExpectedAnswers),
            "a key asks for a lease that ends with its window once its rate expects this many"
                + " requests within it"),
        new Row(
            "minAnswersIfReturned",
            Long.toString(minAnswersIfReturned),
            "the same for a short lease, which goes back when unused"),
        new Row(
            "minAnswersPerHorizon",
            Long.toString(minAnswersPerHorizon),
            "the same, per horizon, for a lease to the end of a window longer than the horizon,"
                + " which goes back after a horizon without an answer"),
        new Row(
            "shortLeaseAnswers",
            Long.toString(shortLeaseAnswers),
            "a key whose rate expects this many requests within a short lease is granted one,"
                + " where a lease to the end of the window would do too"),
        new Row(
            "headroomPercent",
            headroomPercent + " %",
            "a lease holds this share of the requests the rate expects within it"),
        new Row(
            "maxLeasePermits",
            String.format(java.util.Locale.ROOT, "%,d", maxLeasePermits),
            "the most requests' worth of permits in one lease"),
        new Row(
            "shortShare",
            "1/" + shortShare,
            "the most of what is left after the request that a short or paced lease takes"),
        new Row(
            "windowShare",
            "1/" + windowShare,
            "the most of what is left after the request that a lease to the end of the window"
                + " takes"),
        new Row(
            "renewAheadMinPermits",
            Long.toString(renewAheadMinPermits),
            "a short lease of at least this many permits asks for the next one when a quarter is"
                + " left"),
        new Row(
            "maxTrackedKeys",
            String.format(java.util.Locale.ROOT, "%,d", maxTrackedKeys),
            "the keys a holder keeps rates of; beyond it those idle for two horizons are"
                + " forgotten"));
  }

  private static String seconds(long nanos) {
    return nanos % SECOND_NANOS == 0 ? nanos / SECOND_NANOS + " s" : nanos / 1_000_000 + " ms";
  }
}
