package dev.sluice.core.algorithm;

import dev.sluice.core.Decision;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import java.util.Arrays;

/**
 * The first {@link SlidingBuckets}, frozen as it was when it walked every bucket per decision:
 * layout {@code [bucketNanos, newestBucket, count_0 ... count_N]}. Kept as the reference the
 * current class must decide identically to. Do not change it.
 */
final class SlidingBucketsV1 implements LimiterAlgorithm {
  private static final int BUCKET_NANOS = 0;
  private static final int NEWEST = 1;
  private static final int HEADER = 2;
  private static final long MIN_BUCKET_NANOS = 1_000_000L;
  private static final long MAX_BUCKET_NANOS = Limit.MAX_WINDOW.toNanos();

  private final long limit;
  private final long windowNanos;
  private final long bucketNanos;
  private final int slots;
  private final boolean countDenied;

  SlidingBucketsV1(Policy policy) {
    this.limit = policy.limit();
    this.windowNanos = policy.windowNanos();
    this.bucketNanos = NanoMath.ceilDiv(windowNanos, policy.buckets());
    this.slots = policy.buckets() + 1;
    this.countDenied = policy.countDenied();
  }

  @Override
  public long[] newState() {
    long[] state = new long[HEADER + slots];
    state[BUCKET_NANOS] = bucketNanos;
    return state;
  }

  /**
   * The state as is when it was taken with this bucket length and count; otherwise the counts are
   * moved conservatively: each old bucket's count goes to the new bucket that holds the old
   * bucket's last instant, so nothing leaves the window earlier than it would have.
   */
  @Override
  public long[] fit(long[] state) {
    if (state.length == HEADER + slots && state[BUCKET_NANOS] == bucketNanos) {
      return state;
    }
    long[] fitted = newState();
    // Only a plausible buckets state is converted: sub-windows of 1 ms to 30 days (Policy's
    // bounds) and a non-negative bucket index. Anything else (another algorithm's state) is
    // replaced by a fresh one.
    if (state.length <= HEADER
        || state[BUCKET_NANOS] < MIN_BUCKET_NANOS
        || state[BUCKET_NANOS] > MAX_BUCKET_NANOS
        || state[NEWEST] < 0) {
      return fitted;
    }
    long oldBucketNanos = state[BUCKET_NANOS];
    int oldSlots = state.length - HEADER;
    long oldNewest = state[NEWEST];
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
    return fitted;
  }

  private long lastInstantBucket(long oldBucket, long oldBucketNanos) {
    long lastInstant =
        NanoMath.saturatedSubtract(
            NanoMath.saturatedMultiply(Math.max(0, oldBucket + 1), oldBucketNanos), 1);
    return Math.floorDiv(lastInstant, bucketNanos);
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
    long sum = 0;
    for (long k = oldestBucket; k <= bucketNow; k++) {
      sum = NanoMath.saturatedAdd(sum, count(state, newest, k));
    }
    boolean allowed = sum <= limit - permits;
    if (permits > 0 && (allowed || countDenied)) {
      roll(state, newest, bucketNow);
      newest = bucketNow;
      int slot = slot(bucketNow);
      state[slot] = NanoMath.saturatedAdd(state[slot], permits);
      sum = NanoMath.saturatedAdd(sum, permits);
    }
    long remaining = Math.max(0, limit - sum);
    long resetAfter = 0;
    for (long k = bucketNow; k >= oldestBucket; k--) {
      if (count(state, newest, k) > 0) {
        resetAfter = leavesAt(k) - nowNanos;
        break;
      }
    }
    if (allowed) {
      return Decision.allow(limit, remaining, resetAfter);
    }
    // Drop the oldest buckets one by one until the request fits; it fits once the last of them
    // has left. Dropping them all leaves 0, and permits <= limit, so the loop always returns.
    long retryAfter = resetAfter;
    long left = sum;
    for (long k = oldestBucket; k <= bucketNow; k++) {
      left -= count(state, newest, k);
      if (left <= limit - permits) {
        retryAfter = leavesAt(k) - nowNanos;
        break;
      }
    }
    return Decision.deny(limit, remaining, retryAfter, resetAfter);
  }

  /** The oldest bucket overlapping {@code (now - W, now]}: the one holding {@code now - W + 1}. */
  private long oldestOverlapping(long nowNanos) {
    return Math.floorDiv(nowNanos - windowNanos + 1, bucketNanos);
  }

  /** The first instant at which bucket {@code k} no longer overlaps the trailing window. */
  private long leavesAt(long bucket) {
    return (bucket + 1) * bucketNanos + windowNanos - 1;
  }

  /** Bucket {@code k}'s count, 0 if it is newer than the newest written or too old for the ring. */
  private long count(long[] state, long newest, long bucket) {
    if (bucket > newest || bucket <= newest - slots) {
      return 0;
    }
    return state[slot(bucket)];
  }

  /** Clears the slots of buckets {@code newest + 1 .. bucketNow} and makes bucketNow the newest. */
  private void roll(long[] state, long newest, long bucketNow) {
    if (bucketNow - newest >= slots) {
      Arrays.fill(state, HEADER, state.length, 0L);
    } else {
      for (long k = newest + 1; k <= bucketNow; k++) {
        state[slot(k)] = 0;
      }
    }
    state[NEWEST] = bucketNow;
    state[BUCKET_NANOS] = bucketNanos;
  }

  private int slot(long bucket) {
    return HEADER + (int) Math.floorMod(bucket, (long) slots);
  }

  @Override
  public long capacity() {
    return limit;
  }

  /** A bucket counts until {@code W} after its end: at most {@code W + b} after its last write. */
  @Override
  public long untilFreshNanos(long[] state, long nowNanos) {
    return NanoMath.saturatedAdd(windowNanos, bucketNanos);
  }

  /** The frozen reference only decides: it never took part in releases or rule changes. */
  @Override
  public Decision release(long[] state, long nowNanos, long permits) {
    throw new UnsupportedOperationException("the first layout is only decided, never released");
  }

  @Override
  public Decision release(long[] state, long nowNanos, long permits, long admittedAtNanos) {
    throw new UnsupportedOperationException("the first layout is only decided, never released");
  }

  @Override
  public Admissions admissions(long[] state, long nowNanos) {
    throw new UnsupportedOperationException("the first layout is never carried over");
  }

  @Override
  public long[] fromAdmissions(Admissions admissions, long nowNanos) {
    throw new UnsupportedOperationException("the first layout is never carried over");
  }

  @Override
  public long lease(long[] state, long nowNanos, long permits, long lifetimeNanos) {
    throw new UnsupportedOperationException("the first layout never leased");
  }

  @Override
  public Decision returnLease(
      long[] state, long nowNanos, long permits, long grantedAtNanos, long lifetimeNanos) {
    throw new UnsupportedOperationException("the first layout never leased");
  }
}
