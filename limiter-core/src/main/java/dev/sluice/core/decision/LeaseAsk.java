package dev.sluice.core.decision;

/**
 * What a lease holder asks a key's owner to lease along with a request ({@code LeaseDemand}): up to
 * {@code permits} more, for at most {@code lifetimeNanos}. The owner grants less where the key has
 * less to spare, and shortens the lease to what its policy allows ({@link KeyDecision}).
 *
 * @param permits the permits asked for; 0 asks for no lease
 * @param lifetimeNanos the longest lease wanted: {@link #SHORT_OR_PACED} for a key in a burst,
 *     {@link #WINDOW_SHORT_OR_PACED} for a warm one, {@link #UNTIL_WINDOW_END} for a steady one,
 *     {@link #REGION_BUDGET} for a region's budget of a global rule
 */
public record LeaseAsk(long permits, long lifetimeNanos) {
  /** No lease asked for. */
  public static final LeaseAsk NONE = new LeaseAsk(0, 0);

  /**
   * A lifetime that asks for a lease to the end of the window that counts it, where the algorithm
   * allows one ({@link dev.sluice.core.algorithm.LimiterAlgorithm#windowLeaseNanos}).
   */
  public static final long UNTIL_WINDOW_END = Long.MAX_VALUE;

  /**
   * A lifetime that asks for a short lease (as long as the policy allows, {@link
   * dev.sluice.core.Policy#maxLeaseNanos}) or, on a key with nothing to spare, a paced one
   * (docs/algorithms.md, "Paced leases"); it also says that the holder reads paced leases. An owner
   * of a build before paced leases takes it for the longest short lease, as it took {@link
   * dev.sluice.core.Policy#MAX_LEASE_NANOS}; holders of such builds never send it, so they are
   * never granted a paced lease.
   */
  public static final long SHORT_OR_PACED = Long.MAX_VALUE - 1;

  /**
   * A lifetime that asks for a lease to the end of the window where the algorithm allows one and
   * the key has room for it ({@link #UNTIL_WINDOW_END}), and otherwise for what {@link
   * #SHORT_OR_PACED} asks for; its permits are a second's worth of the key's requests, of which a
   * short or paced lease takes the part its lifetime covers. The owner marks which kind it granted
   * ({@link KeyOutcome#leaseToWindowEnd}). An owner of a build before this ask takes it for the
   * longest short lease, as it takes {@link #SHORT_OR_PACED}, and marks nothing.
   */
  public static final long WINDOW_SHORT_OR_PACED = Long.MAX_VALUE - 2;

  /**
   * A lifetime that asks, for a region's budget of a global rule (docs/multi-region.md), for a
   * lease to the end of the window where the algorithm allows one and the key has room for it (as
   * {@link #UNTIL_WINDOW_END}, marked as {@link #WINDOW_SHORT_OR_PACED}'s is), and otherwise for a
   * paced lease that lasts to the end of the window: at most half of the permits that free up in
   * the rest of it, so that one region never takes them all. A region measures a paced permit's
   * instant from when home's answer arrived and the lease's end from when its ask left, so a round
   * trip costs each paced lease the permits of one round trip; lasting to the window's end, instead
   * of the short lifetime, makes that a small share. An owner of a build before this ask takes it
   * for the longest short lease, as it takes {@link #SHORT_OR_PACED}, and marks nothing.
   */
  public static final long REGION_BUDGET = Long.MAX_VALUE - 3;

  /** The acquire of {@code requestPermits} that carries this ask (a plain acquire for none). */
  public KeyOp acquire(long requestPermits) {
    return permits == 0
        ? KeyOp.acquire(requestPermits)
        : KeyOp.acquireWithLease(requestPermits, permits, lifetimeNanos);
  }

  /** Whether this ask wants more permits than {@code other}, to keep one ask per key in a batch. */
  public boolean exceeds(LeaseAsk other) {
    return permits > other.permits;
  }
}
