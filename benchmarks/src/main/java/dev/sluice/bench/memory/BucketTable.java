package dev.sluice.bench.memory;

import dev.sluice.core.Decision;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Candidate (e): the states of many keys in one map entry, as one compact byte array. Pure: no
 * Hazelcast here; {@link BucketProcessor} runs it on the owner and its backup.
 *
 * <pre>
 *   table  = [format: byte = 2][due: varint, epoch seconds] entry*
 *   entry  = [length of the rest: varint][hash: byte][subject length: varint][subject: UTF-8]
 *            [rule id: varint][window index: varint][current: varint][previous: varint]
 * </pre>
 *
 * A key "mem|m123456" costs 1 + 1 + 1 + 7 + 1 + 4 + 1 + 1 = 17 bytes in its bucket. What a map
 * entry costs (record, node, table slot, key, the array's header; about 125 B with no TTL) is paid
 * once per bucket and shared by the keys in it.
 *
 * <h2>Finding a key</h2>
 *
 * A linear scan that hops from entry to entry by their lengths and looks further only where the
 * one-byte hash of (rule id, subject) matches. A product version would index larger tables (open
 * addressing); at 64 keys per bucket the scan touches about 1 KB.
 *
 * <h2>Writes and cleanup</h2>
 *
 * {@code due} is a lower bound of the instant (whole seconds, rounded down) at which the first
 * state in the table becomes fresh (decides as an absent key would, so dropping it is exact). A
 * decision applies the algorithm to its key's state and, if the state changed, writes a new array:
 * the other entries in their order (copied in runs), then this key at the end. Only when {@code
 * now} has reached {@code due} does the write also decode every other state, leave out the fresh
 * ones and set {@code due} exactly; otherwise {@code due} becomes the earlier of itself and the new
 * state's, which keeps it a lower bound. A denial that changes nothing writes nothing, as in {@code
 * DecideProcessor}. The backup gets the key, its new state and the owner's {@code now}, and
 * rebuilds the same table from the same input: it never reads its own clock. {@link #compact} is
 * the sweep's step for buckets nobody writes to.
 */
final class BucketTable {
  static final int FORMAT = 2;
  private static final long SECOND_NANOS = 1_000_000_000L;

  private BucketTable() {}

  /** The outcome of one decision: the answer, and the new table if it changed (null: remove). */
  record Result(
      Decision decision, boolean changed, byte @Nullable [] table, long @Nullable [] state) {}

  /** One pass over a table: where the key is, its state, and which entries are fresh. */
  private static final class Scan {
    int bodyStart = 1;
    long due;
    boolean evaluated;
    long exactDue = Long.MAX_VALUE;
    int matchStart = -1;
    int matchEnd = -1;
    long @Nullable [] matchState;

    /** Start and end offsets of the entries to leave out, in order. */
    int[] dead = new int[0];

    int deadCount;
    int deadBytes;

    void addDead(int start, int end) {
      if (deadCount * 2 == dead.length) {
        dead = Arrays.copyOf(dead, Math.max(8, dead.length * 2));
      }
      dead[deadCount * 2] = start;
      dead[deadCount * 2 + 1] = end;
      deadCount++;
      deadBytes += end - start;
    }
  }

  static Result decide(
      byte @Nullable [] table,
      int ruleId,
      byte[] subject,
      long nowNanos,
      long permits,
      LimiterAlgorithm algorithm,
      long windowNanos) {
    Scan scan = scan(table, ruleId, subject, nowNanos, algorithm, windowNanos, false);
    long[] before = scan.matchState;
    long[] state = before != null ? before.clone() : algorithm.newState();
    Decision decision = algorithm.apply(state, nowNanos, permits);
    if (before != null
        ? Arrays.equals(before, state)
        : Arrays.equals(algorithm.newState(), state)) {
      return new Result(decision, false, table, null);
    }
    return new Result(
        decision,
        true,
        write(table, scan, ruleId, subject, state, nowNanos, algorithm, windowNanos),
        state);
  }

  /** The state of (rule id, subject) in {@code table}, or null. */
  static long @Nullable [] find(
      byte @Nullable [] table, int ruleId, byte[] subject, long windowNanos) {
    return scan(table, ruleId, subject, Long.MIN_VALUE, null, windowNanos, false).matchState;
  }

  /**
   * The table with (rule id, subject) set to {@code state} (or left out if that state is fresh),
   * cleaned as {@link #decide} cleans it at {@code nowNanos}; null if nothing is left. What the
   * backup runs with the owner's state and {@code now}.
   */
  static byte @Nullable [] rebuild(
      byte @Nullable [] table,
      int ruleId,
      byte[] subject,
      long[] state,
      long nowNanos,
      LimiterAlgorithm algorithm,
      long windowNanos) {
    Scan scan = scan(table, ruleId, subject, nowNanos, algorithm, windowNanos, false);
    return write(table, scan, ruleId, subject, state, nowNanos, algorithm, windowNanos);
  }

  /**
   * The table without the entries fresh at {@code nowNanos}: itself if none is, null if all are.
   */
  static byte @Nullable [] compact(
      byte[] table, long nowNanos, LimiterAlgorithm algorithm, long windowNanos) {
    Scan scan = scan(table, -1, null, nowNanos, algorithm, windowNanos, true);
    if (scan.deadCount == 0 && scan.exactDue == scan.due) {
      return table;
    }
    if (table.length - scan.deadBytes - scan.bodyStart == 0) {
      return null;
    }
    return assemble(table, scan, scan.exactDue, 0);
  }

  /** How many keys {@code table} holds. */
  static int count(byte @Nullable [] table) {
    if (table == null) {
      return 0;
    }
    checkFormat(table);
    int count = 0;
    for (int p = afterVarint(table, 1); p < table.length; count++) {
      long length = readVarint(table, p);
      p = afterVarint(table, p) + (int) length;
    }
    return count;
  }

  /** The longest time until any state in {@code table} is fresh (a TTL for the whole bucket). */
  static long untilAllFreshNanos(
      byte[] table, long nowNanos, LimiterAlgorithm algorithm, long windowNanos) {
    checkFormat(table);
    long longest = 0;
    long[] scratch = new long[3];
    for (int p = afterVarint(table, 1); p < table.length; ) {
      int length = (int) readVarint(table, p);
      int body = afterVarint(table, p);
      p = body + length;
      readState(table, afterSubject(table, body + 1), scratch, windowNanos);
      longest = Math.max(longest, algorithm.untilFreshNanos(scratch, nowNanos));
    }
    return longest;
  }

  /** The one-byte hash an entry carries (the top byte; buckets use the hash's low bits). */
  static byte hashByte(int ruleId, byte[] subject) {
    return (byte) (KeyCodec.hash64(ruleId, subject) >>> 56);
  }

  private static Scan scan(
      byte @Nullable [] table,
      int ruleId,
      byte @Nullable [] subject,
      long nowNanos,
      @Nullable LimiterAlgorithm algorithm,
      long windowNanos,
      boolean evaluateAll) {
    Scan scan = new Scan();
    if (table == null) {
      scan.due = Long.MAX_VALUE;
      return scan;
    }
    checkFormat(table);
    scan.due = readVarint(table, 1);
    scan.bodyStart = afterVarint(table, 1);
    scan.evaluated =
        algorithm != null && (evaluateAll || Math.floorDiv(nowNanos, SECOND_NANOS) >= scan.due);
    byte hash = subject == null ? 0 : hashByte(ruleId, subject);
    long[] scratch = new long[3];
    for (int p = scan.bodyStart; p < table.length; ) {
      int start = p;
      int length = (int) readVarint(table, p);
      int body = afterVarint(table, p);
      p = body + length;
      boolean match = false;
      if (subject != null && table[body] == hash) {
        int subjectLength = (int) readVarint(table, body + 1);
        int at = afterVarint(table, body + 1);
        int idAt = at + subjectLength;
        match =
            subjectLength == subject.length
                && Arrays.equals(table, at, idAt, subject, 0, subjectLength)
                && readVarint(table, idAt) == ruleId;
        if (match) {
          readState(table, idAt, scratch, windowNanos);
          scan.matchStart = start;
          scan.matchEnd = p;
          scan.matchState = scratch.clone();
        }
      }
      if (!match && scan.evaluated) {
        readState(table, afterSubject(table, body + 1), scratch, windowNanos);
        long until = algorithm.untilFreshNanos(scratch, nowNanos);
        if (until == 0) {
          scan.addDead(start, p);
        } else {
          scan.exactDue = Math.min(scan.exactDue, dueSeconds(nowNanos, until));
        }
      }
    }
    return scan;
  }

  private static byte @Nullable [] write(
      byte @Nullable [] table,
      Scan scan,
      int ruleId,
      byte[] subject,
      long[] state,
      long nowNanos,
      LimiterAlgorithm algorithm,
      long windowNanos) {
    long until = algorithm.untilFreshNanos(state, nowNanos);
    long due = scan.evaluated ? scan.exactDue : scan.due;
    if (until > 0) {
      due = Math.min(due, dueSeconds(nowNanos, until));
    }
    if (scan.matchStart >= 0) {
      scan.addDead(scan.matchStart, scan.matchEnd);
      sortDead(scan);
    }
    long index = Math.floorDiv(state[0], windowNanos);
    int rest =
        until > 0
            ? 1
                + Varints.size(subject.length)
                + subject.length
                + Varints.size(ruleId)
                + Varints.size(index)
                + Varints.size(state[1])
                + Varints.size(state[2])
            : 0;
    int entryBytes = rest > 0 ? Varints.size(rest) + rest : 0;
    int liveBytes = table == null ? 0 : table.length - scan.bodyStart - scan.deadBytes;
    if (liveBytes + entryBytes == 0) {
      return null;
    }
    byte[] out = assemble(table, scan, due, entryBytes);
    if (rest > 0) {
      int p = out.length - entryBytes;
      p = putVarint(out, p, rest);
      out[p++] = hashByte(ruleId, subject);
      p = putVarint(out, p, subject.length);
      System.arraycopy(subject, 0, out, p, subject.length);
      p += subject.length;
      p = putVarint(out, p, ruleId);
      p = putVarint(out, p, index);
      p = putVarint(out, p, state[1]);
      putVarint(out, p, state[2]);
    }
    return out;
  }

  /** A new table: header with {@code due}, the live entries of {@code table}, room at the end. */
  private static byte[] assemble(byte @Nullable [] table, Scan scan, long due, int extra) {
    long header = due == Long.MAX_VALUE ? 0 : due;
    int liveBytes = table == null ? 0 : table.length - scan.bodyStart - scan.deadBytes;
    byte[] out = new byte[1 + Varints.size(header) + liveBytes + extra];
    out[0] = FORMAT;
    int p = putVarint(out, 1, header);
    if (table != null) {
      int from = scan.bodyStart;
      for (int i = 0; i < scan.deadCount; i++) {
        int start = scan.dead[i * 2];
        System.arraycopy(table, from, out, p, start - from);
        p += start - from;
        from = scan.dead[i * 2 + 1];
      }
      System.arraycopy(table, from, out, p, table.length - from);
    }
    return out;
  }

  /** Whole seconds, rounded down, of the instant {@code untilNanos} after {@code nowNanos}. */
  private static long dueSeconds(long nowNanos, long untilNanos) {
    long at = nowNanos + untilNanos;
    return Math.floorDiv(at < nowNanos ? Long.MAX_VALUE : at, SECOND_NANOS);
  }

  private static int afterSubject(byte[] table, int subjectLengthAt) {
    int length = (int) readVarint(table, subjectLengthAt);
    return afterVarint(table, subjectLengthAt) + length;
  }

  /** Reads [rule id][window index][current][previous] at {@code p} into {@code state}. */
  private static void readState(byte[] table, int p, long[] state, long windowNanos) {
    p = afterVarint(table, p);
    state[0] = readVarint(table, p) * windowNanos;
    p = afterVarint(table, p);
    state[1] = readVarint(table, p);
    p = afterVarint(table, p);
    state[2] = readVarint(table, p);
  }

  /** The match was added last; move it into offset order (the other ranges are in order). */
  private static void sortDead(Scan scan) {
    for (int i = scan.deadCount - 1; i > 0 && scan.dead[i * 2] < scan.dead[i * 2 - 2]; i--) {
      int start = scan.dead[i * 2];
      int end = scan.dead[i * 2 + 1];
      scan.dead[i * 2] = scan.dead[i * 2 - 2];
      scan.dead[i * 2 + 1] = scan.dead[i * 2 - 1];
      scan.dead[i * 2 - 2] = start;
      scan.dead[i * 2 - 1] = end;
    }
  }

  private static long readVarint(byte[] bytes, int p) {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte b = bytes[p++];
      value |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        return value;
      }
    }
    throw new IllegalArgumentException("varint longer than 64 bits");
  }

  private static int afterVarint(byte[] bytes, int p) {
    while (bytes[p] < 0) {
      p++;
    }
    return p + 1;
  }

  private static int putVarint(byte[] out, int p, long value) {
    while ((value & ~0x7FL) != 0) {
      out[p++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    out[p++] = (byte) value;
    return p;
  }

  private static void checkFormat(byte[] table) {
    if (table.length == 0 || table[0] != FORMAT) {
      throw new IllegalArgumentException("unknown bucket table format");
    }
  }
}
