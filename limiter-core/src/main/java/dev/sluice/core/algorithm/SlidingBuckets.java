package dev.sluice.core.algorithm;

import dev.sluice.core.Decision;
import dev.sluice.core.Limit;
import java.util.Arrays;

/**
 * Sliding buckets: the window cut into {@code N} sub-window counters (default 60), summed over
 * every bucket that overlaps the trailing window. Figma's limiter, made conservative.
 *
 * <h2>The rule</h2>
 *
 * Buckets are epoch-aligned and {@code b = ceil(W / N)} long; bucket {@code k} holds the permits
 * admitted in {@code [k·b, (k+1)·b)}. The trailing window {@code (now - W, now]} overlaps buckets
 * {@code kMin .. kNow}, at most {@code N + 1} of them, and the oldest one only partly:
 *
 * <pre>
 *   kNow = floor(now / b)        kMin = floor((now - W + 1) / b)
 *   allow iff  sum(count[kMin .. kNow]) + permits ≤ limit
 * </pre>
 *
 * The partial oldest bucket counts whole. So the sum covers a superset of the trailing window and
 * never undercounts it: in any window of length {@code W} at most {@code limit} permits are
 * admitted, like the exact {@link SlidingLog}, and on the same trace of single permits it admits no
 * more than the log does (its {@code i}-th admission is never earlier than the log's: each needs
 * the {@code limit}-th previous admission to be at least {@code W} back, and the buckets demand it
 * to be further back still). What it gives up is the other side: for up to {@code b} after a busy
 * bucket's permits have left the trailing window, they still count.
 *
 * <h2>Worked example: 4 per 60 s, N = 6 (b = 10 s)</h2>
 *
 * <pre>
 *   bucket  [0,10) [10,20) [20,30) [30,40) [40,50) [50,60) [60,70)
 *   count     2      0       1       0       1       0
 *   t=5s  ×2 allowed, t=25s ×1 allowed, t=45s ×1 allowed: sum 4, remaining 0
 *   t=64s: trailing window (4s, 64s] overlaps buckets 0..6; bucket 0 counts whole: sum 4, denied
 *          (the exact log would see only 2 and allow). Bucket 0 leaves when
 *          kMin > 0, i.e. at t = 1·10 + 60 - 1 ns = 69.999999999 s: retryAfter 5.999999999 s
 *   t=70s: sum 2, allowed
 * </pre>
 *
 * {@code retryAfter} is exact and tight: bucket {@code k} stops counting at {@code (k+1)·b + W - 1}
 * ns, so the delay is the moment the oldest buckets whose removal makes room have all left.
 *
 * <h2>Keeping a decision O(1): a running sum</h2>
 *
 * The ring holds buckets {@code newest - N .. newest} and the state keeps their sum. A trailing
 * window spans {@code W - 1} ns, and {@code b >= W / N}, so it overlaps buckets {@code kMin ..
 * kNow} with {@code kNow - kMin ≤ N}: every bucket it needs is in the ring once {@code kNow} is the
 * newest. Then
 *
 * <pre>
 *   sum(count[kMin .. kNow]) = ringSum - sum(count[newest - N .. kMin - 1])
 * </pre>
 *
 * and the subtracted buckets are the ones that left the window since the newest write: one or two
 * when decisions come at least once per bucket, and never more than the window's own buckets (the
 * shorter side is read). Writing rolls the ring forward: the slots of buckets that left are
 * subtracted from the sum and cleared, each once. So admissions and peeks on a busy key read a
 * handful of counters, a decision after {@code g} idle buckets reads {@code min(g, N/2)} or so, and
 * only a denial still walks from the oldest bucket, stopping as soon as enough have left to make
 * room. Slots are visited in ring order with no division per bucket. Counts saturate at {@link
 * Long#MAX_VALUE}, where a sum cannot be subtracted from; a saturated running sum is never trusted
 * and the window is summed instead, so the decisions are those of summing every bucket, always.
 *
 * <h2>Giving permits back</h2>
 *
 * A plain release takes the permits off the newest buckets that still overlap the trailing window,
 * newest first: the permits a caller that was just admitted most likely holds. A stamped one
 * ({@code admittedAt}) takes them off the bucket its admission was counted in, {@code
 * floor(admittedAt / b)}, which is the exact undo while that bucket is in the ring. Once it has
 * left the ring (its counts were cleared when the ring rolled past it, and it no longer overlaps
 * any trailing window) forgetting the admission changes nothing, so nothing is freed. (Before this
 * rule the release started at the oldest bucket of the ring instead and took a later request's
 * permits: 2 per 10 s, N = 1, admitted at 1 s and at 25 s; returning the 1 s admission at 26 s
 * freed the 25 s permit.)
 *
 * <h2>What it trades away</h2>
 *
 * {@code 8 × (N + 5)} bytes per key (520 B at N = 60) instead of one timestamp per permit. Accuracy
 * against the log is measured in {@code docs/accuracy.md}; the error is only ever toward denying,
 * by at most one bucket's worth of traffic, and more buckets shrink it. When {@code N} does not
 * divide {@code W}, buckets are rounded up to {@code ceil(W / N)} so that the trailing window still
 * overlaps at most {@code N + 1}.
 *
 * <h2>State</h2>
 *
 * {@code [2, bucketNanos, newestBucket, ringSum, count_0 ... count_N]}: the layout tag {@value
 * #LAYOUT_V2}, the bucket length the counts were taken with, the index {@code k} of the newest
 * bucket written, the sum of the ring's counters, and a ring of {@code N + 1} counters, bucket
 * {@code k} at {@code k mod (N + 1)}. Counters of buckets older than {@code newestBucket - N} are
 * stale and read as 0.
 */
public final class SlidingBuckets implements LimiterAlgorithm {
  /** Word 0 of the layout: a state without it is not a buckets state, and starts afresh. */
  static final long LAYOUT_V2 = 2;

  private static final int LAYOUT = 0;
  private static final int BUCKET_NANOS = 1;
  private static final int NEWEST = 2;
  private static final int SUM = 3;
  private static final int HEADER = 4;

  private static final long MIN_BUCKET_NANOS = 1_000_000L;
  private static final long MAX_BUCKET_NANOS = Limit.MAX_WINDOW.toNanos();

  private final long limit;
  private final long windowNanos;
  private final long bucketNanos;
  private final int slots;
  private final boolean countDenied;

  SlidingBuckets(Limit spec, boolean countDenied) {
    this.limit = spec.limit();
    this.windowNanos = spec.windowNanos();
    this.bucketNanos = NanoMath.ceilDiv(windowNanos, spec.buckets());
    this.slots = spec.buckets() + 1;
    this.countDenied = countDenied;
  }

  @Override
  public long[] newState() {
    long[] state = new long[HEADER + slots];
    state[LAYOUT] = LAYOUT_V2;
    state[BUCKET_NANOS] = bucketNanos;
    return state;
  }

  /**
   * The state as is when it was taken with this bucket length and count. Otherwise the counts are
   * moved conservatively: each old bucket's count goes to the new bucket that holds the old
   * bucket's last instant, so nothing leaves the window earlier than it would have.
   */
  @Override
  public long[] fit(long[] state) {
    if (state.length == HEADER + slots
        && state[LAYOUT] == LAYOUT_V2
        && state[BUCKET_NANOS] == bucketNanos) {
      return state;
    }
    long[] fitted = newState();
    if (state.length <= HEADER || state[LAYOUT] != LAYOUT_V2) {
      return fitted;
    }
    long oldBucketNanos = state[BUCKET_NANOS];
    long oldNewest = state[NEWEST];
    // Only a plausible buckets state is converted: sub-windows of 1 ms to 30 days (Policy's
    // bounds) and a non-negative bucket index. Anything else (another algorithm's state) is
    // replaced by a fresh one.
    if (oldBucketNanos < MIN_BUCKET_NANOS || oldBucketNanos > MAX_BUCKET_NANOS || oldNewest < 0) {
      return fitted;
    }
    int oldSlots = state.length - HEADER;
    long newest = lastInstantBucket(oldNewest, oldBucketNanos);
    fitted[NEWEST] = newest;
    for (int age = 0; age < oldSlots; age++) {
      long oldBucket = oldNewest - age;
      long count = state[HEADER + (int) Math.floorMod(oldBucket, (long) oldSlots)];
      long bucket = lastInstantBucket(oldBucket, oldBucketNanos);
      if (count > 0 && bucket > newest - slots && bucket <= newest) {
        int slot = slot(bucket);
        fitted[slot] = NanoMath.saturatedAdd(fitted[slot], count);
      }
    }
    fitted[SUM] = sum(fitted, newest - slots + 1, newest);
    return fitted;
  }

  private long lastInstantBucket(long oldBucket, long oldBucketNanos) {
    long lastInstant =
        NanoMath.saturatedSubtract(
            NanoMath.saturatedMultiply(Math.max(0, oldBucket + 1), oldBucketNanos), 1);
    return Math.floorDiv(lastInstant, bucketNanos);
  }

  /**
   * The newest written bucket's start once the ring counts something: a booking may have moved it
   * ahead.
   */
  @Override
  public long notBeforeNanos(long[] state) {
    return state[SUM] != 0
        ? NanoMath.saturatedMultiply(state[NEWEST], bucketNanos)
        : Long.MIN_VALUE;
  }

  @Override
  public Decision apply(long[] state, long nowNanos, long permits) {
    Permits.check(permits, limit);
    long newest = state[NEWEST];
    long bucketNow = Math.floorDiv(nowNanos, bucketNanos);
    long decidedAt = nowNanos;
    if (bucketNow < newest) {
      // The clock stepped back (or fit moved counts into a bucket that ends later): decide at the
      // newest bucket's start and count there rather than in a stale slot. Delays are still
      // measured from the real now: a bucket leaves at its own (k + 1)·b + W - 1.
      bucketNow = newest;
      decidedAt = newest * bucketNanos;
    }
    long oldestBucket = oldestOverlapping(decidedAt);
    long sum = windowSum(state, newest, oldestBucket);
    boolean allowed = sum <= limit - permits;
    if (permits > 0 && (allowed || countDenied)) {
      roll(state, newest, bucketNow);
      newest = bucketNow;
      int slot = slot(bucketNow);
      state[slot] = NanoMath.saturatedAdd(state[slot], permits);
      state[SUM] = NanoMath.saturatedAdd(state[SUM], permits);
      sum = NanoMath.saturatedAdd(sum, permits);
    }
    long remaining = Math.max(0, limit - sum);
    // Buckets after the newest written are empty, so the scans below start or stop there.
    long newestNonEmpty = sum == 0 ? oldestBucket - 1 : newestNonEmpty(state, newest, oldestBucket);
    long resetAfter = newestNonEmpty >= oldestBucket ? leavesAt(newestNonEmpty) - nowNanos : 0;
    if (allowed) {
      return Decision.allow(limit, remaining, resetAfter);
    }
    // Drop the oldest buckets one by one until the request fits; it fits once the last of them
    // has left. Dropping them all leaves 0, and permits <= limit, so the loop always returns.
    long retryAfter = resetAfter;
    long left = sum;
    int slot = slot(oldestBucket);
    for (long k = oldestBucket; k <= newest; k++) {
      left -= state[slot];
      if (left <= limit - permits) {
        retryAfter = leavesAt(k) - nowNanos;
        break;
      }
      slot = next(slot);
    }
    return Decision.deny(limit, remaining, retryAfter, resetAfter);
  }

  /**
   * Takes the permits off the newest buckets inside the window, newest first, at most what they
   * hold.
   */
  @Override
  public Decision release(long[] state, long nowNanos, long permits) {
    Permits.check(permits, limit);
    long newest = state[NEWEST];
    long decidedAt = Math.max(nowNanos, newest * bucketNanos);
    long oldestBucket = oldestOverlapping(decidedAt);
    long left = permits;
    int slot = slot(newest);
    for (long k = newest; k >= oldestBucket && left > 0; k--) {
      long taken = Math.min(left, state[slot]);
      state[slot] -= taken;
      if (state[SUM] != Long.MAX_VALUE) {
        state[SUM] -= taken;
      }
      left -= taken;
      slot = slot == HEADER ? state.length - 1 : slot - 1;
    }
    if (state[SUM] == Long.MAX_VALUE) {
      state[SUM] = sum(state, newest - slots + 1, newest);
    }
    return apply(state, nowNanos, 0);
  }

  /**
   * Takes the permits off the admission's bucket, then (had the clock stepped back, the admission
   * counted in a later one) off the buckets after it, oldest first. An admission whose bucket has
   * left the ring frees nothing (see "Giving permits back").
   */
  @Override
  public Decision release(long[] state, long nowNanos, long permits, long admittedAtNanos) {
    Permits.check(permits, limit);
    long newest = state[NEWEST];
    long from = Math.floorDiv(admittedAtNanos, bucketNanos);
    long left = from > newest - slots ? permits : 0;
    for (long k = from; k <= newest && left > 0; k++) {
      int slot = slot(k);
      long taken = Math.min(left, state[slot]);
      state[slot] -= taken;
      if (state[SUM] != Long.MAX_VALUE) {
        state[SUM] -= taken;
      }
      left -= taken;
    }
    if (state[SUM] == Long.MAX_VALUE) {
      state[SUM] = sum(state, newest - slots + 1, newest);
    }
    return apply(state, nowNanos, 0);
  }

  /** A lease ends with the bucket that counts it, so one may last that long. */
  @Override
  public long windowLeaseNanos() {
    return bucketNanos;
  }

  /**
   * The current bucket counts the lease, which ends with the bucket: a request the holder answers
   * within it would have counted in the same bucket at the owner.
   */
  @Override
  public long lease(long[] state, long nowNanos, long permits, long lifetimeNanos) {
    apply(state, nowNanos, permits);
    long bucketEnd = NanoMath.saturatedMultiply(state[NEWEST] + 1, bucketNanos);
    return Math.max(nowNanos, Math.min(NanoMath.saturatedAdd(nowNanos, lifetimeNanos), bucketEnd));
  }

  /** Each bucket's count at the last instant of the bucket, or now if that is later. */
  @Override
  public Admissions admissions(long[] state, long nowNanos) {
    Admissions.Builder admissions = new Admissions.Builder();
    long newest = state[NEWEST];
    int slot = slot(newest - slots + 1);
    for (long k = newest - slots + 1; k <= newest; k++) {
      long bucketLast = NanoMath.saturatedAdd(NanoMath.saturatedMultiply(k + 1, bucketNanos), -1);
      admissions.add(Math.min(nowNanos, bucketLast), state[slot]);
      slot = next(slot);
    }
    return admissions.build();
  }

  @Override
  public long[] fromAdmissions(Admissions admissions, long nowNanos) {
    long[] state = newState();
    long newest = Math.floorDiv(nowNanos, bucketNanos);
    long oldestBucket = oldestOverlapping(nowNanos);
    state[NEWEST] = newest;
    for (int i = 0; i < admissions.size(); i++) {
      long bucket = Math.floorDiv(admissions.instant(i), bucketNanos);
      if (bucket >= oldestBucket && bucket <= newest) {
        int slot = slot(bucket);
        state[slot] = NanoMath.saturatedAdd(state[slot], admissions.permits(i));
        state[SUM] = NanoMath.saturatedAdd(state[SUM], admissions.permits(i));
      }
    }
    return state;
  }

  /**
   * The sum over the buckets {@code oldestBucket .. newest} (later ones are empty): the ring's
   * running sum less the buckets older than the window, or the window's buckets summed directly,
   * whichever reads fewer. When decisions come at least once per bucket the buckets older than the
   * window are one or two. A running sum that saturated is not trusted: the window is summed.
   */
  private long windowSum(long[] state, long newest, long oldestBucket) {
    if (oldestBucket > newest) {
      return 0;
    }
    long ringOldest = newest - slots + 1; // oldestBucket >= ringOldest: see the class comment
    long older = oldestBucket - ringOldest;
    long inWindow = newest - oldestBucket + 1;
    if (state[SUM] == Long.MAX_VALUE || inWindow <= older) {
      return sum(state, oldestBucket, newest);
    }
    return older == 0 ? state[SUM] : state[SUM] - sum(state, ringOldest, oldestBucket - 1);
  }

  /** The saturated sum of the counts of buckets {@code from .. to}, all inside the ring. */
  private long sum(long[] state, long from, long to) {
    long sum = 0;
    int slot = slot(from);
    for (long k = from; k <= to; k++) {
      sum = NanoMath.saturatedAdd(sum, state[slot]);
      slot = next(slot);
    }
    return sum;
  }

  /**
   * The newest bucket in {@code oldestBucket .. newest} with a count, or {@code oldestBucket - 1}.
   */
  private long newestNonEmpty(long[] state, long newest, long oldestBucket) {
    int slot = slot(newest);
    long k = newest;
    while (k >= oldestBucket && state[slot] == 0) {
      k--;
      slot = slot == HEADER ? state.length - 1 : slot - 1;
    }
    return k;
  }

  /** The oldest bucket overlapping {@code (now - W, now]}: the one holding {@code now - W + 1}. */
  private long oldestOverlapping(long nowNanos) {
    return Math.floorDiv(nowNanos - windowNanos + 1, bucketNanos);
  }

  /** The first instant at which bucket {@code k} no longer overlaps the trailing window. */
  private long leavesAt(long bucket) {
    return (bucket + 1) * bucketNanos + windowNanos - 1;
  }

  /**
   * Makes {@code bucketNow} the newest bucket: buckets {@code newest + 1 .. bucketNow} take the
   * slots of the oldest ones, whose counts leave the ring and its running sum.
   */
  private void roll(long[] state, long newest, long bucketNow) {
    if (bucketNow - newest >= slots) {
      Arrays.fill(state, HEADER, state.length, 0L);
      state[SUM] = 0;
    } else if (bucketNow > newest) {
      long leaving = 0;
      int slot = slot(newest + 1);
      for (long k = newest + 1; k <= bucketNow; k++) {
        leaving = NanoMath.saturatedAdd(leaving, state[slot]);
        state[slot] = 0;
        slot = next(slot);
      }
      state[SUM] =
          state[SUM] == Long.MAX_VALUE
              ? sum(state, bucketNow - slots + 1, bucketNow)
              : state[SUM] - leaving;
    }
    state[NEWEST] = bucketNow;
  }

  private int slot(long bucket) {
    return HEADER + (int) Math.floorMod(bucket, (long) slots);
  }

  /** The slot after {@code slot}, around the ring. */
  private int next(int slot) {
    return slot + 1 == HEADER + slots ? HEADER : slot + 1;
  }

  @Override
  public long capacity() {
    return limit;
  }

  /**
   * A bucket counts until {@code W} after its end, so the newest written bucket {@code k} lasts
   * until {@link #leavesAt}{@code (k) + 1}: at most {@code W + b} after the last write.
   */
  @Override
  public long untilFreshNanos(long[] state, long nowNanos) {
    if (state[SUM] == 0) {
      return 0;
    }
    long freshAt = NanoMath.saturatedAdd(leavesAt(state[NEWEST]), 1);
    return Math.max(0, NanoMath.saturatedSubtract(freshAt, nowNanos));
  }
}
