package dev.sluice.core.algorithm;

import dev.sluice.core.Decision;
import dev.sluice.core.Limit;

/**
 * Concurrency limit: at most {@code limit} permits in flight at once (Sentinel's thread count,
 * Redisson's permit-expirable semaphore, APISIX's limit-conn). Each admission holds its permits
 * under an id until it releases them by that id, or until they expire {@code permitTtl} after the
 * admission, so a holder that crashes cannot leak them forever.
 *
 * <h2>The rule</h2>
 *
 * <pre>
 *   inFlight(now) = permits admitted and neither released nor expired (expiresAt > now)
 *   allow iff  inFlight(now) + permits ≤ limit          then log (id, now + permitTtl) per permit
 *   retryAfter = the instant enough permits expire for the request to fit, minus now
 *   resetAfter = the latest expiry, minus now
 * </pre>
 *
 * {@code retryAfter} assumes nobody releases early, so it is an upper bound of the wait: a release
 * by id frees the permits at once.
 *
 * <h2>Worked example: 2 in flight, permitTtl 30 s</h2>
 *
 * <pre>
 *   t=0s   acquire → allowed, id a, remaining 1 (a lives until 30s)
 *   t=1s   acquire → allowed, id b, remaining 0 (b until 31s)
 *   t=2s   acquire → denied, retryAfter 28s (a expires at 30s)
 *   t=3s   release a → remaining 1
 *   t=3s   acquire → allowed, id c (until 33s)
 *   t=31s  b expired (its holder never released it): remaining 1
 * </pre>
 *
 * <h2>Ids</h2>
 *
 * An id is {@code max(nextId, now)}: increasing on a key, and starting from the owner's clock, so
 * an id of a key whose state was forgotten (every permit expired) is not handed out again, and a
 * stale release of it frees nothing.
 *
 * <h2>Booking ahead</h2>
 *
 * A booking ({@link Booking}) at instant {@code a} logs its permits as admitted at {@code a}; until
 * {@code a} no request proceeds ({@link #notBeforeNanos}, the latest admission instant), because a
 * state decided at {@code a} has dropped the permits that expire before {@code a} while their
 * holders still hold them. That instant is kept in the state and never lowered, not even when the
 * booking is released early: the permits it dropped are still held until {@code a}, and a request
 * decided before {@code a} would not see them (over-admission; found by {@code
 * ConcurrencyPropertiesTest}).
 *
 * <h2>What it trades away</h2>
 *
 * {@code 16 × limit + 24} bytes per key: one entry per permit, so the limit is capped at {@value
 * Limit#MAX_CONCURRENCY}. A concurrency limit counts no rate: pair it with a rate rule of its own.
 *
 * <h2>State</h2>
 *
 * {@code [nextId, size, notBefore, id_0, expiresAt_0, ..., id_(limit-1), expiresAt_(limit-1)]}: the
 * next id, the entries in use, the latest admission instant, and one (id, expiry) entry per permit,
 * unordered.
 */
public final class Concurrency implements LimiterAlgorithm {
  private static final int NEXT_ID = 0;
  private static final int SIZE = 1;
  private static final int NOT_BEFORE = 2;
  private static final int HEADER = 3;

  private final long limit;
  private final long permitTtlNanos;

  Concurrency(Limit spec) {
    this.limit = spec.limit();
    this.permitTtlNanos = spec.windowNanos();
  }

  @Override
  public long[] newState() {
    return new long[HEADER + 2 * (int) limit];
  }

  /**
   * The state as is if it has this limit's length; another concurrency state's live entries are
   * kept (the latest expiring first when there are too many), anything else starts afresh.
   */
  @Override
  public long[] fit(long[] state) {
    if (state.length == HEADER + 2 * limit && state[SIZE] >= 0 && state[SIZE] <= limit) {
      return state;
    }
    long[] fitted = newState();
    if (state.length < HEADER || (state.length - HEADER) % 2 != 0 || state[SIZE] < 0) {
      return fitted;
    }
    int size = (int) Math.min(state[SIZE], (state.length - HEADER) / 2);
    long[][] entries = new long[size][];
    for (int i = 0; i < size; i++) {
      entries[i] = new long[] {state[HEADER + 2 * i], state[HEADER + 2 * i + 1]};
    }
    java.util.Arrays.sort(entries, (x, y) -> Long.compare(y[1], x[1]));
    int kept = (int) Math.min(size, limit);
    for (int i = 0; i < kept; i++) {
      fitted[HEADER + 2 * i] = entries[i][0];
      fitted[HEADER + 2 * i + 1] = entries[i][1];
    }
    fitted[SIZE] = kept;
    fitted[NEXT_ID] = state[NEXT_ID];
    fitted[NOT_BEFORE] = state.length > NOT_BEFORE ? state[NOT_BEFORE] : 0;
    return fitted;
  }

  @Override
  public Decision apply(long[] state, long nowNanos, long permits) {
    Permits.check(permits, limit);
    int live = live(state, nowNanos);
    boolean allowed = live <= limit - permits;
    if (permits > 0 && allowed) {
      long id = Math.max(state[NEXT_ID], Math.max(nowNanos, 1));
      state[NEXT_ID] = NanoMath.saturatedAdd(id, 1);
      state[NOT_BEFORE] = Math.max(state[NOT_BEFORE], nowNanos);
      purge(state, nowNanos);
      long expiresAt = NanoMath.saturatedAdd(nowNanos, permitTtlNanos);
      int size = (int) state[SIZE];
      for (int i = 0; i < permits; i++) {
        state[HEADER + 2 * size] = id;
        state[HEADER + 2 * size + 1] = expiresAt;
        size++;
      }
      state[SIZE] = size;
      return Decision.allow(limit, limit - size, untilFreshNanos(state, nowNanos)).withPermitId(id);
    }
    long resetAfter = live > 0 ? untilFreshNanos(state, nowNanos) : 0;
    if (allowed) {
      return Decision.allow(limit, limit - live, resetAfter);
    }
    return Decision.deny(limit, limit - live, retryAfter(state, nowNanos, permits), resetAfter);
  }

  /** The wait until {@code live + permits - limit} of the live permits have expired. */
  private long retryAfter(long[] state, long nowNanos, long permits) {
    int size = (int) state[SIZE];
    long[] expiries = new long[size];
    int live = 0;
    for (int i = 0; i < size; i++) {
      long expiresAt = state[HEADER + 2 * i + 1];
      if (expiresAt > nowNanos) {
        expiries[live++] = expiresAt;
      }
    }
    java.util.Arrays.sort(expiries, 0, live);
    int mustExpire = (int) (live + permits - limit);
    return expiries[mustExpire - 1] - nowNanos;
  }

  /** Frees the permits of {@code permitId}; an unknown id frees nothing. */
  @Override
  public Decision releasePermit(long[] state, long nowNanos, long permitId) {
    int size = (int) state[SIZE];
    for (int i = size - 1; i >= 0; i--) {
      if (state[HEADER + 2 * i] == permitId) {
        remove(state, i);
      }
    }
    return apply(state, nowNanos, 0);
  }

  /** Frees the {@code permits} live permits admitted last (the latest expiry). */
  @Override
  public Decision release(long[] state, long nowNanos, long permits) {
    Permits.check(permits, limit);
    purge(state, nowNanos);
    for (long k = 0; k < permits && state[SIZE] > 0; k++) {
      int latest = 0;
      for (int i = 1; i < state[SIZE]; i++) {
        if (state[HEADER + 2 * i + 1] > state[HEADER + 2 * latest + 1]) {
          latest = i;
        }
      }
      remove(state, latest);
    }
    return apply(state, nowNanos, 0);
  }

  /** Frees {@code permits} of the permits admitted at {@code admittedAtNanos}. */
  @Override
  public Decision release(long[] state, long nowNanos, long permits, long admittedAtNanos) {
    Permits.check(permits, limit);
    purge(state, nowNanos);
    long expiresAt = NanoMath.saturatedAdd(admittedAtNanos, permitTtlNanos);
    long left = permits;
    for (int i = (int) state[SIZE] - 1; i >= 0 && left > 0; i--) {
      if (state[HEADER + 2 * i + 1] == expiresAt) {
        remove(state, i);
        left--;
      }
    }
    return apply(state, nowNanos, 0);
  }

  /** Permits in flight each have an id of their own: a concurrency limit is never leased. */
  @Override
  public long lease(long[] state, long nowNanos, long permits, long lifetimeNanos) {
    return nowNanos;
  }

  @Override
  public Decision returnLease(
      long[] state, long nowNanos, long permits, long grantedAtNanos, long lifetimeNanos) {
    return apply(state, nowNanos, 0);
  }

  /**
   * The latest admission instant: a booking's instant is ahead of now until it starts, and stays
   * the bound even once the booking is released (see "Booking ahead").
   */
  @Override
  public long notBeforeNanos(long[] state) {
    return state[NOT_BEFORE] == 0 ? Long.MIN_VALUE : state[NOT_BEFORE];
  }

  /** Each live permit, admitted at its expiry less the permit's lifetime (never after now). */
  @Override
  public Admissions admissions(long[] state, long nowNanos) {
    Admissions.Builder builder = new Admissions.Builder();
    for (int i = 0; i < state[SIZE]; i++) {
      long expiresAt = state[HEADER + 2 * i + 1];
      if (expiresAt > nowNanos) {
        builder.add(Math.min(nowNanos, expiresAt - permitTtlNanos), 1);
      }
    }
    return builder.build();
  }

  /**
   * Each admission still alive after this limit's lifetime becomes a permit with no id (it can only
   * expire), the latest first, at most {@code limit} of them.
   */
  @Override
  public long[] fromAdmissions(Admissions admissions, long nowNanos) {
    long[] state = newState();
    int size = 0;
    for (int i = admissions.size() - 1; i >= 0 && size < limit; i--) {
      long expiresAt = NanoMath.saturatedAdd(admissions.instant(i), permitTtlNanos);
      for (long k = 0; k < admissions.permits(i) && size < limit && expiresAt > nowNanos; k++) {
        state[HEADER + 2 * size] = 0;
        state[HEADER + 2 * size + 1] = expiresAt;
        size++;
      }
    }
    state[SIZE] = size;
    return state;
  }

  @Override
  public long capacity() {
    return limit;
  }

  /**
   * Until the last permit expires, and not before the latest admission instant: a booking decided
   * at that instant dropped permits that expire only before it, and their holders hold them until
   * then.
   */
  @Override
  public long untilFreshNanos(long[] state, long nowNanos) {
    long latest = state[NOT_BEFORE] == 0 ? Long.MIN_VALUE : state[NOT_BEFORE];
    for (int i = 0; i < state[SIZE]; i++) {
      latest = Math.max(latest, state[HEADER + 2 * i + 1]);
    }
    return latest == Long.MIN_VALUE ? 0 : Math.max(0, NanoMath.saturatedSubtract(latest, nowNanos));
  }

  /** The permits in flight at {@code nowNanos}. */
  private static int live(long[] state, long nowNanos) {
    int live = 0;
    for (int i = 0; i < state[SIZE]; i++) {
      if (state[HEADER + 2 * i + 1] > nowNanos) {
        live++;
      }
    }
    return live;
  }

  /** Drops the expired entries. */
  private static void purge(long[] state, long nowNanos) {
    for (int i = (int) state[SIZE] - 1; i >= 0; i--) {
      if (state[HEADER + 2 * i + 1] <= nowNanos) {
        remove(state, i);
      }
    }
  }

  /** Removes entry {@code i}, moving the last one into its place. */
  private static void remove(long[] state, int i) {
    int last = (int) state[SIZE] - 1;
    state[HEADER + 2 * i] = state[HEADER + 2 * last];
    state[HEADER + 2 * i + 1] = state[HEADER + 2 * last + 1];
    state[HEADER + 2 * last] = 0;
    state[HEADER + 2 * last + 1] = 0;
    state[SIZE] = last;
  }
}
