package dev.sluice.core.algorithm;

import dev.sluice.core.Decision;
import dev.sluice.core.Limit;

/**
 * Sliding log: one timestamp per admitted permit, the exact trailing-window count. The Redis
 * sorted-set log ({@code ZREMRANGEBYSCORE}, {@code ZCARD}, {@code ZADD}), as a bounded ring.
 *
 * <h2>The rule</h2>
 *
 * <pre>
 *   live      = #{ ts in log : ts > now - W }                 (the trailing window (now - W, now])
 *   allow iff  live + permits ≤ limit                        then append permits × now
 *   retryAfter = ts_k + W - now     with k = live + permits - limit: the k-th oldest live entry
 *   resetAfter = newest + W - now                             (every entry has left the window)
 * </pre>
 *
 * Both delays are exact and tight: an entry stamped {@code ts} counts until {@code ts + W - 1} and
 * is gone at {@code ts + W}, so at {@code now + retryAfter} exactly {@code k} entries have left and
 * one nanosecond earlier only {@code k - 1} have.
 *
 * <h2>Worked example: 3 per 10 s</h2>
 *
 * <pre>
 *   t=0s  allowed   log [0]
 *   t=4s  allowed   log [0, 4]
 *   t=9s  allowed   log [0, 4, 9]                    remaining 0
 *   t=9s  denied    k = 3 + 1 - 3 = 1: the oldest, 0s, leaves at 10s: retryAfter 1s
 *   t=10s allowed   0s has left (0 > 10 - 10 is false)   log [4, 9, 10]
 *
 *   |0   |4        |9 |10        |14
 *   [─────────── W ──────────)
 *        [─────────── W ──────────)       any 10 s interval holds at most 3
 * </pre>
 *
 * <h2>Why a ring of exactly {@code limit}</h2>
 *
 * Admission needs {@code live ≤ limit} after appending, so no more than {@code limit} entries are
 * ever live; older ones are dead and can be overwritten. The ring is allocated at full size because
 * the caller owns the array and {@link #apply} cannot grow it. Entries are appended at {@code
 * max(now, newest)}, so the ring stays sorted even if the clock steps back.
 *
 * <h2>What it trades away</h2>
 *
 * It is the reference every approximation is measured against, and it costs memory: {@code 8 ×
 * (limit + 2)} bytes per key (80 KB at the default cap of {@value
 * Limit#DEFAULT_SLIDING_LOG_MAX_LIMIT}; the cap is {@link Limit#SLIDING_LOG_MAX_LIMIT}), and O(p +
 * expired) time per decision. With {@code countDenied} denied permits are logged too (evicting the
 * oldest): the log stays full of the newest attempts, so a client is limited until it has been
 * quiet for {@code W}.
 *
 * <h2>Giving permits back</h2>
 *
 * A release removes entries: a plain one the newest live entries, a stamped one ({@code
 * admittedAt}) the entries its admission appended, which are the oldest logged at or after {@code
 * admittedAt}. Two things keep that from freeing more than forgetting the admission would:
 *
 * <ul>
 *   <li>An admission at or before {@code now - W} has left the window, and its entries may already
 *       be gone (an append drops expired entries): whatever is logged at or after {@code
 *       admittedAt} now belongs to later requests, so nothing is freed. (Without this check a late
 *       return freed a later request's entry: 3 per 10 s, admitted at 0 s and at 11 s, which
 *       dropped the 0 s entry; returning the 0 s admission at 12 s removed the 11 s entry.)
 *   <li>With {@code countDenied} a penalised denial evicts the oldest entries of a full ring while
 *       they still count. Forgetting a later request would have left room for them, so removing its
 *       entries would free what the history still counts. The ring cannot tell whether that
 *       happened, but it can tell when it cannot have: live entries are pushed out only from a full
 *       ring, and they are older than every entry still in it, so once the ring has room or its
 *       oldest entry has expired, none that still counts is missing. In a full ring whose oldest
 *       entry {@code h} is live, released entries are therefore moved to {@code h} rather than
 *       removed: they stop counting when {@code h} leaves, never before the entries they may stand
 *       for. A stamped release there gives back only entries stamped with the admission's own
 *       instant: if its entries were pushed out themselves, the ones after them are other requests'
 *       and stay. (Without it: 2 per 1 min, countDenied, 1 at 0 s, 1 at 1 s, a denial at 2 s evicts
 *       the 0 s entry; returning the 1 s admission left only [2 s] where the history without it
 *       counts [0 s, 2 s].) A release in a ring with room, or without {@code countDenied}, is
 *       exact.
 * </ul>
 *
 * <h2>State</h2>
 *
 * {@code [head, size, ts_0 ... ts_(limit-1)]}: a ring of {@code limit} timestamps (epoch
 * nanoseconds) whose oldest entry is at index {@code head} and which holds {@code size} entries,
 * oldest to newest.
 */
public final class SlidingLog implements LimiterAlgorithm {
  private static final int HEAD = 0;
  private static final int SIZE = 1;
  private static final int HEADER = 2;

  private final long limit;
  private final int ringSize;
  private final long windowNanos;
  private final boolean countDenied;

  SlidingLog(Limit spec, boolean countDenied) {
    // Policy caps a sliding_log limit at SLIDING_LOG_MAX_LIMIT (at most a million), so the ring
    // fits an int.
    this.limit = Math.min(spec.limit(), Limit.SLIDING_LOG_MAX_LIMIT);
    this.ringSize = (int) limit;
    this.windowNanos = spec.windowNanos();
    this.countDenied = countDenied;
  }

  @Override
  public long[] newState() {
    return new long[HEADER + ringSize];
  }

  /**
   * The state as is when its ring has {@code limit} entries; otherwise a ring of the new size that
   * keeps the newest timestamps (all of them if they fit), so that a changed limit neither forgets
   * recent traffic nor lets it count twice.
   */
  @Override
  public long[] fit(long[] state) {
    if (!isWellFormed(state)) {
      return newState();
    }
    if (state.length == HEADER + ringSize) {
      return state;
    }
    int oldRing = state.length - HEADER;
    int head = (int) state[HEAD];
    int size = (int) state[SIZE];
    int kept = Math.min(size, ringSize);
    long[] fitted = newState();
    for (int i = 0; i < kept; i++) {
      fitted[HEADER + i] = state[HEADER + (head + size - kept + i) % oldRing];
    }
    fitted[SIZE] = kept;
    return fitted;
  }

  @Override
  public Decision apply(long[] state, long nowNanos, long permits) {
    Permits.check(permits, limit);
    int head = (int) state[HEAD];
    int size = (int) state[SIZE];
    // New entries are logged no earlier than the newest, so the ring stays sorted: after a clock
    // that stepped back, or behind a lease's entries (logged at its expiry, ahead of now). What has
    // left the window is judged from the real now, never from a newer entry: an entry leaves at its
    // own ts + W, and a future entry must not push the older ones out early.
    long decidedAt = size > 0 ? Math.max(nowNanos, entry(state, head, size - 1)) : nowNanos;
    long cutoff = NanoMath.saturatedSubtract(nowNanos, windowNanos); // live iff ts > cutoff
    int expired = 0;
    while (expired < size && entry(state, head, expired) <= cutoff) {
      expired++;
    }
    int oldest = (head + expired) % ringSize;
    int live = size - expired;
    boolean allowed = live <= limit - permits;
    if (permits > 0 && (allowed || countDenied)) {
      oldest = append(state, oldest, live, decidedAt, (int) permits);
      live = (int) state[SIZE];
    }
    long remaining = limit - live;
    long resetAfter = live > 0 ? entry(state, oldest, live - 1) + windowNanos - nowNanos : 0;
    if (allowed) {
      return Decision.allow(limit, remaining, resetAfter);
    }
    int mustLeave = (int) (live + permits - limit); // >= 1, since denied
    long retryAfter = entry(state, oldest, mustLeave - 1) + windowNanos - nowNanos;
    return Decision.deny(limit, remaining, retryAfter, resetAfter);
  }

  /**
   * A booking at {@code atNanos}: counted as of then ({@code count(ts > at - W) + permits <= L}),
   * and logged at {@code at} (or at the newest entry, to keep the ring sorted). Entries that leave
   * the window between now and {@code at} are kept, because requests decided before {@code at} must
   * still count them; only as many of the oldest as the ring needs room for are dropped, and since
   * the booking fits at {@code at}, that many have left by then. Each dropped entry is outweighed
   * by one booked permit, so a request decided before {@code at} never counts less than the truth.
   */
  @Override
  public Decision applyAt(long[] state, long nowNanos, long atNanos, long permits) {
    if (atNanos <= nowNanos) {
      return apply(state, nowNanos, permits);
    }
    Permits.check(permits, limit);
    int head = (int) state[HEAD];
    int size = (int) state[SIZE];
    long cutoffNow = NanoMath.saturatedSubtract(nowNanos, windowNanos);
    long cutoffAt = NanoMath.saturatedSubtract(atNanos, windowNanos);
    int goneNow = 0;
    while (goneNow < size && entry(state, head, goneNow) <= cutoffNow) {
      goneNow++;
    }
    int goneAt = goneNow;
    while (goneAt < size && entry(state, head, goneAt) <= cutoffAt) {
      goneAt++;
    }
    if (size - goneAt > limit - permits || permits == 0) {
      return apply(state.clone(), atNanos, permits);
    }
    int liveNow = size - goneNow;
    int dropped = goneNow + Math.max(0, liveNow + (int) permits - ringSize);
    long loggedAt = size > 0 ? Math.max(atNanos, entry(state, head, size - 1)) : atNanos;
    append(state, (head + dropped) % ringSize, size - dropped, loggedAt, (int) permits);
    Decision seen = apply(state.clone(), atNanos, 0);
    return Decision.allow(limit, seen.remaining(), seen.resetAfterNanos());
  }

  /**
   * Drops the expired entries and appends {@code permits} copies of {@code now}, overwriting the
   * oldest when the ring is full (only a penalised denial can fill it). Returns the new head.
   */
  private int append(long[] state, int oldest, int live, long nowNanos, int permits) {
    int head = oldest;
    int size = live;
    for (int i = 0; i < permits; i++) {
      if (size == ringSize) {
        head = (head + 1) % ringSize;
        size--;
      }
      state[HEADER + (head + size) % ringSize] = nowNanos;
      size++;
    }
    state[HEAD] = head;
    state[SIZE] = size;
    return head;
  }

  /**
   * Removes the newest live entries, at most {@code permits} of them: the ones a caller that
   * admitted permits a moment ago and did not use them most likely holds (see "Giving permits
   * back").
   */
  @Override
  public Decision release(long[] state, long nowNanos, long permits) {
    Permits.check(permits, limit);
    int head = (int) state[HEAD];
    int size = (int) state[SIZE];
    long cutoff = cutoff(nowNanos);
    int live = 0;
    while (live < size && entry(state, head, size - 1 - live) > cutoff) {
      live++;
    }
    int removed = (int) Math.min(permits, live);
    forget(state, size - removed, removed, cutoff);
    return apply(state, nowNanos, 0);
  }

  /**
   * Removes the oldest entries logged at or after the admission: the admission appended its entries
   * at that instant (or at the newest entry's, had the clock stepped back), and everything logged
   * since came after them. An admission that has left the window frees nothing (see "Giving permits
   * back").
   */
  @Override
  public Decision release(long[] state, long nowNanos, long permits, long admittedAtNanos) {
    Permits.check(permits, limit);
    long cutoff = cutoff(nowNanos);
    if (admittedAtNanos > cutoff) {
      int head = (int) state[HEAD];
      int size = (int) state[SIZE];
      int first = 0;
      while (first < size && entry(state, head, first) < admittedAtNanos) {
        first++;
      }
      int count = (int) Math.min(permits, size - first);
      if (mayMissLiveEntries(state, cutoff)) {
        count = 0;
        while (count < permits
            && first + count < size
            && entry(state, head, first + count) == admittedAtNanos) {
          count++;
        }
      }
      forget(state, first, count, cutoff);
    }
    return apply(state, nowNanos, 0);
  }

  /**
   * Whether penalties may have pushed out entries that still count: only under {@code countDenied},
   * only from a full ring, and only while its oldest entry (newer than any pushed out) is live.
   */
  private boolean mayMissLiveEntries(long[] state, long cutoff) {
    return countDenied && state[SIZE] == ringSize && entry(state, (int) state[HEAD], 0) > cutoff;
  }

  /**
   * Entries at or before this instant have left the window: {@code now - W}, from the real now even
   * when a newer entry is ahead of it (a lease's, logged at its expiry; a clock that stepped back),
   * since each entry leaves at its own instant plus W.
   */
  private long cutoff(long nowNanos) {
    return NanoMath.saturatedSubtract(nowNanos, windowNanos);
  }

  /**
   * Forgets the {@code count} entries from the {@code first}-th oldest on, keeping the ring sorted:
   * removes them, or, in a full ring under {@code countDenied} whose oldest entry is live (a
   * penalty may have pushed out entries that still count), moves them to the oldest entry's
   * instant.
   */
  private void forget(long[] state, int first, int count, long cutoff) {
    if (count == 0) {
      return;
    }
    int head = (int) state[HEAD];
    int size = (int) state[SIZE];
    long oldest = entry(state, head, 0);
    if (mayMissLiveEntries(state, cutoff)) {
      for (int i = first - 1; i >= 0; i--) {
        state[HEADER + (head + i + count) % ringSize] = entry(state, head, i);
      }
      for (int i = 0; i < count; i++) {
        state[HEADER + (head + i) % ringSize] = oldest;
      }
      return;
    }
    // Shift the entries after the removed run down over it.
    for (int i = first; i + count < size; i++) {
      state[HEADER + (head + i) % ringSize] = entry(state, head, i + count);
    }
    state[SIZE] = size - count;
  }

  /**
   * The lease's permits are logged at its expiry, the latest instant the holder can use one: each
   * leaves the window no earlier than the request it stands for would have. Entries that have left
   * the window by now are dropped as a decision would; none that still counts before the expiry is.
   */
  @Override
  public long lease(long[] state, long nowNanos, long permits, long lifetimeNanos) {
    int head = (int) state[HEAD];
    int size = (int) state[SIZE];
    long expiresAt = NanoMath.saturatedAdd(nowNanos, lifetimeNanos);
    long cutoff = NanoMath.saturatedSubtract(nowNanos, windowNanos);
    int expired = 0;
    while (expired < size && entry(state, head, expired) <= cutoff) {
      expired++;
    }
    long newest = size > 0 ? entry(state, head, size - 1) : expiresAt;
    append(
        state,
        (head + expired) % ringSize,
        size - expired,
        Math.max(expiresAt, newest),
        (int) permits);
    return expiresAt;
  }

  /** The lease's entries, logged at its expiry, leave as {@link #release} would remove them. */
  @Override
  public Decision returnLease(
      long[] state, long nowNanos, long permits, long grantedAtNanos, long lifetimeNanos) {
    return release(state, nowNanos, permits, NanoMath.saturatedAdd(grantedAtNanos, lifetimeNanos));
  }

  /** Every entry of the ring, at its own instant (never after now). */
  @Override
  public Admissions admissions(long[] state, long nowNanos) {
    Admissions.Builder admissions = new Admissions.Builder();
    int head = (int) state[HEAD];
    int size = (int) state[SIZE];
    for (int i = 0; i < size; i++) {
      admissions.add(Math.min(nowNanos, entry(state, head, i)), 1);
    }
    return admissions.build();
  }

  /** The newest {@code limit} permits still inside the window, oldest first. */
  @Override
  public long[] fromAdmissions(Admissions admissions, long nowNanos) {
    long[] state = newState();
    long cutoff = NanoMath.saturatedSubtract(nowNanos, windowNanos);
    int size = 0;
    for (int i = admissions.size() - 1; i >= 0 && size < ringSize; i--) {
      long instant = admissions.instant(i);
      if (instant <= cutoff) {
        break;
      }
      long copies = Math.min(admissions.permits(i), ringSize - size);
      for (long c = 0; c < copies; c++) {
        size++;
        state[HEADER + ringSize - size] = instant;
      }
    }
    // Filled from the end of the ring backwards: the oldest kept entry is at ringSize - size.
    state[HEAD] = size == 0 ? 0 : ringSize - size;
    state[SIZE] = size;
    return state;
  }

  /** The {@code index}-th entry (0 = oldest) of the ring starting at {@code head}. */
  private long entry(long[] state, int head, int index) {
    return state[HEADER + (head + index) % ringSize];
  }

  private static boolean isWellFormed(long[] state) {
    if (state.length <= HEADER) {
      return false;
    }
    long ring = state.length - HEADER;
    return state[HEAD] >= 0 && state[HEAD] < ring && state[SIZE] >= 0 && state[SIZE] <= ring;
  }

  @Override
  public long capacity() {
    return limit;
  }

  /** An entry counts for {@code W} after it was appended: the newest one lasts longest. */
  @Override
  public long untilFreshNanos(long[] state, long nowNanos) {
    int size = (int) state[SIZE];
    if (size == 0) {
      return 0;
    }
    long newest = entry(state, (int) state[HEAD], size - 1);
    return Math.max(
        0, NanoMath.saturatedSubtract(NanoMath.saturatedAdd(newest, windowNanos), nowNanos));
  }
}
