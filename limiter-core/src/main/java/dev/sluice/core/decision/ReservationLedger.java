package dev.sluice.core.decision;

import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.algorithm.NanoMath;
import java.util.Arrays;

/**
 * The reservations a key holds, kept beside its algorithm's state in the same stored value so that
 * a commit and the refund or charge it makes are one atomic step on the key's owner ({@link
 * KeyDecision}). Pure functions over a {@code long[]}; the array is never changed in place.
 *
 * <h2>Layout</h2>
 *
 * Five longs per reservation, unordered:
 *
 * <pre>
 *   [id, estimate, admittedAt, expiresAt, settled] × n
 *   settled = OPEN (-1) until committed, then the committed cost (0 or more)
 * </pre>
 *
 * A reservation stays in the ledger until {@code expiresAt}, committed or not, so that a second
 * commit is told "already committed" rather than "unknown". An open one whose expiry passes is
 * settled at its estimate: the estimate was charged when it was reserved, so settling changes
 * nothing but the ledger.
 *
 * <h2>Ids</h2>
 *
 * {@code max(newest id + 1, now)}: increasing on a key and starting from the owner's clock, so a
 * reservation of a key whose state was reset (or forgotten) is never confused with a new one.
 *
 * <h2>Bound</h2>
 *
 * At most {@value #MAX_ENTRIES} reservations per key: when full, the committed one expiring first
 * makes room (a double commit of it is then answered "unknown" instead of "already committed"); a
 * key with that many open reservations refuses another.
 */
public final class ReservationLedger {
  /** The ledger of a key that holds no reservation. */
  public static final long[] EMPTY = new long[0];

  /** The most reservations one key keeps. */
  public static final int MAX_ENTRIES = 1024;

  /** {@link #settled} of a reservation not yet committed. */
  public static final long OPEN = -1;

  private static final int ID = 0;
  private static final int ESTIMATE = 1;
  private static final int ADMITTED_AT = 2;
  private static final int EXPIRES_AT = 3;
  private static final int SETTLED = 4;
  private static final int WIDTH = 5;

  private ReservationLedger() {}

  /** The number of reservations in {@code ledger}. */
  public static int size(long[] ledger) {
    return ledger.length / WIDTH;
  }

  /** Whether {@code ledger} is a well-formed ledger (a multiple of five longs, up to the bound). */
  public static boolean wellFormed(long[] ledger) {
    return ledger.length % WIDTH == 0 && ledger.length / WIDTH <= MAX_ENTRIES;
  }

  /**
   * {@code ledger} with a new open reservation of {@code estimate} admitted at {@code nowNanos},
   * expiring {@code ttlNanos} later, last; {@link #lastId} of the answer is its id.
   *
   * @throws InvalidPolicyException naming {@code reservation} if the key holds {@value
   *     #MAX_ENTRIES} open reservations already
   */
  static long[] open(long[] ledger, long nowNanos, long estimate, long ttlNanos) {
    long[] room = withRoom(ledger);
    long id = Math.max(NanoMath.saturatedAdd(newestId(ledger), 1), Math.max(nowNanos, 1));
    long[] opened = Arrays.copyOf(room, room.length + WIDTH);
    int at = room.length;
    opened[at + ID] = id;
    opened[at + ESTIMATE] = estimate;
    opened[at + ADMITTED_AT] = nowNanos;
    opened[at + EXPIRES_AT] = NanoMath.saturatedAdd(nowNanos, ttlNanos);
    opened[at + SETTLED] = OPEN;
    return opened;
  }

  /**
   * {@code ledger} with room for one more reservation: itself, or without the committed one that
   * expires first.
   *
   * @throws InvalidPolicyException naming {@code reservation} if every one is open
   */
  static long[] withRoom(long[] ledger) {
    return size(ledger) < MAX_ENTRIES ? ledger : dropFirstExpiringCommitted(ledger);
  }

  /** The id of the reservation {@link #open} added last to {@code ledger}. */
  static long lastId(long[] ledger) {
    return ledger[ledger.length - WIDTH + ID];
  }

  /** The largest id in {@code ledger}, or 0 for an empty one. */
  private static long newestId(long[] ledger) {
    long newest = 0;
    for (int at = 0; at < ledger.length; at += WIDTH) {
      newest = Math.max(newest, ledger[at + ID]);
    }
    return newest;
  }

  private static long[] dropFirstExpiringCommitted(long[] ledger) {
    int first = -1;
    for (int at = 0; at < ledger.length; at += WIDTH) {
      if (ledger[at + SETTLED] != OPEN
          && (first < 0 || ledger[at + EXPIRES_AT] < ledger[first + EXPIRES_AT])) {
        first = at;
      }
    }
    if (first < 0) {
      throw new InvalidPolicyException(
          "reservation",
          "the key holds "
              + MAX_ENTRIES
              + " open reservations already; commit some before reserving more");
    }
    return without(ledger, first);
  }

  /** The position of reservation {@code id} in {@code ledger}, or -1 if it holds none. */
  static int find(long[] ledger, long id) {
    for (int at = 0; at < ledger.length; at += WIDTH) {
      if (ledger[at + ID] == id) {
        return at;
      }
    }
    return -1;
  }

  static long estimate(long[] ledger, int at) {
    return ledger[at + ESTIMATE];
  }

  static long admittedAt(long[] ledger, int at) {
    return ledger[at + ADMITTED_AT];
  }

  /** {@link #OPEN}, or the cost the reservation at {@code at} was committed at. */
  static long settled(long[] ledger, int at) {
    return ledger[at + SETTLED];
  }

  /** {@code ledger} with the reservation at {@code at} committed at {@code cost}. */
  static long[] commit(long[] ledger, int at, long cost) {
    long[] committed = ledger.clone();
    committed[at + SETTLED] = cost;
    return committed;
  }

  /**
   * The open reservations of {@code ledger} whose ttl has passed by {@code nowNanos}: what a store
   * settles at their estimate when it drops them.
   */
  public static int expiredOpen(long[] ledger, long nowNanos) {
    int expired = 0;
    for (int at = 0; at < ledger.length; at += WIDTH) {
      if (ledger[at + SETTLED] == OPEN && ledger[at + EXPIRES_AT] <= nowNanos) {
        expired++;
      }
    }
    return expired;
  }

  /** {@code ledger} without the reservations that expired by {@code nowNanos}. */
  static long[] purge(long[] ledger, long nowNanos) {
    int live = 0;
    for (int at = 0; at < ledger.length; at += WIDTH) {
      if (ledger[at + EXPIRES_AT] > nowNanos) {
        live++;
      }
    }
    if (live == size(ledger)) {
      return ledger;
    }
    if (live == 0) {
      return EMPTY;
    }
    long[] kept = new long[live * WIDTH];
    int to = 0;
    for (int at = 0; at < ledger.length; at += WIDTH) {
      if (ledger[at + EXPIRES_AT] > nowNanos) {
        System.arraycopy(ledger, at, kept, to, WIDTH);
        to += WIDTH;
      }
    }
    return kept;
  }

  /**
   * How long from {@code nowNanos} the ledger must be kept: until its last reservation expires (0
   * for none). A store that forgot it earlier would answer a commit "unknown" and skip its charge.
   */
  public static long untilExpiredNanos(long[] ledger, long nowNanos) {
    long latest = nowNanos;
    for (int at = 0; at < ledger.length; at += WIDTH) {
      latest = Math.max(latest, ledger[at + EXPIRES_AT]);
    }
    return NanoMath.saturatedSubtract(latest, nowNanos);
  }

  private static long[] without(long[] ledger, int at) {
    long[] rest = new long[ledger.length - WIDTH];
    System.arraycopy(ledger, 0, rest, 0, at);
    System.arraycopy(ledger, at + WIDTH, rest, at, ledger.length - at - WIDTH);
    return rest;
  }
}
