package dev.sluice.bench.memory;

import dev.sluice.core.Decision;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Candidate (e): the states of many keys in one map entry, as one compact byte array. Pure: no
 * Hazelcast here; {@link BucketProcessor} runs it on the owner and its backup.
 *
 * <pre>
 *   table  = [format: byte = 1] entry*
 *   entry  = [subject length: varint][subject: UTF-8][rule id: varint]
 *            [window index: varint][current: varint][previous: varint]
 * </pre>
 *
 * A key "mem|m123456" costs 1 + 7 + 1 + 4 + 1 + 1 = 15 bytes in its bucket. What a map entry costs
 * (record, node, table slot, key, the array's header; about 125 B with no TTL) is paid once per
 * bucket and shared by the keys in it.
 *
 * <h2>Writes and cleanup</h2>
 *
 * A decision finds its key by a linear scan, applies the algorithm, and, if the state changed,
 * rebuilds the table: the other keys in their order, without those whose state is fresh at {@code
 * now} (they decide as an absent key would, so dropping them is exact), then this key at the end. A
 * denial that changes nothing writes nothing, as in {@code AcquireProcessor}. The backup gets the
 * key, its new state and the owner's {@code now}, and rebuilds the same table from the same input:
 * it never reads its own clock. {@link #compact} is the sweep's step for buckets nobody writes to.
 */
final class BucketTable {
  static final int FORMAT = 1;

  private BucketTable() {}

  /** The outcome of one decision: the answer, and the new table if it changed (null: remove). */
  record Result(
      Decision decision, boolean changed, byte @Nullable [] table, long @Nullable [] state) {}

  static Result decide(
      byte @Nullable [] table,
      int ruleId,
      byte[] subject,
      long nowNanos,
      long permits,
      LimiterAlgorithm algorithm,
      long windowNanos) {
    long[] before = find(table, ruleId, subject, windowNanos);
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
        rebuild(table, ruleId, subject, state, nowNanos, algorithm, windowNanos),
        state);
  }

  /** The state of (rule id, subject) in {@code table}, or null. */
  static long @Nullable [] find(
      byte @Nullable [] table, int ruleId, byte[] subject, long windowNanos) {
    if (table == null) {
      return null;
    }
    checkFormat(table);
    Varints.Reader in = new Varints.Reader(table, 1);
    while (in.hasMore()) {
      int length = (int) in.next();
      int at = in.skip(length);
      long id = in.next();
      long index = in.next();
      long current = in.next();
      long previous = in.next();
      if (id == ruleId
          && length == subject.length
          && Arrays.equals(table, at, at + length, subject, 0, length)) {
        return new long[] {index * windowNanos, current, previous};
      }
    }
    return null;
  }

  /**
   * The table with (rule id, subject) set to {@code state} (or left out if that state is fresh) and
   * every other entry that is fresh at {@code nowNanos} dropped; null if nothing is left.
   */
  static byte @Nullable [] rebuild(
      byte @Nullable [] table,
      int ruleId,
      byte[] subject,
      long[] state,
      long nowNanos,
      LimiterAlgorithm algorithm,
      long windowNanos) {
    ByteArrayOutputStream out =
        new ByteArrayOutputStream((table == null ? 1 : table.length) + subject.length + 16);
    out.write(FORMAT);
    if (table != null) {
      copyLive(table, out, ruleId, subject, nowNanos, algorithm, windowNanos);
    }
    if (algorithm.untilFreshNanos(state, nowNanos) > 0) {
      writeEntry(out, ruleId, subject, state, windowNanos);
    }
    return out.size() > 1 ? out.toByteArray() : null;
  }

  /**
   * The table without the entries fresh at {@code nowNanos}: itself if none is, null if all are.
   */
  static byte @Nullable [] compact(
      byte[] table, long nowNanos, LimiterAlgorithm algorithm, long windowNanos) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(table.length);
    out.write(FORMAT);
    copyLive(table, out, -1, null, nowNanos, algorithm, windowNanos);
    if (out.size() == table.length) {
      return table;
    }
    return out.size() > 1 ? out.toByteArray() : null;
  }

  /** How many keys {@code table} holds. */
  static int count(byte @Nullable [] table) {
    if (table == null) {
      return 0;
    }
    checkFormat(table);
    Varints.Reader in = new Varints.Reader(table, 1);
    int count = 0;
    while (in.hasMore()) {
      in.skip((int) in.next());
      for (int i = 0; i < 4; i++) {
        in.next();
      }
      count++;
    }
    return count;
  }

  /** The longest time until any state in {@code table} is fresh (a TTL for the whole bucket). */
  static long untilAllFreshNanos(
      byte[] table, long nowNanos, LimiterAlgorithm algorithm, long windowNanos) {
    checkFormat(table);
    Varints.Reader in = new Varints.Reader(table, 1);
    long longest = 0;
    while (in.hasMore()) {
      in.skip((int) in.next());
      in.next();
      long[] state = {in.next() * windowNanos, in.next(), in.next()};
      longest = Math.max(longest, algorithm.untilFreshNanos(state, nowNanos));
    }
    return longest;
  }

  private static void copyLive(
      byte[] table,
      ByteArrayOutputStream out,
      int skipRuleId,
      byte @Nullable [] skipSubject,
      long nowNanos,
      LimiterAlgorithm algorithm,
      long windowNanos) {
    checkFormat(table);
    Varints.Reader in = new Varints.Reader(table, 1);
    while (in.hasMore()) {
      int start = in.position();
      int length = (int) in.next();
      int at = in.skip(length);
      long id = in.next();
      long[] state = {in.next() * windowNanos, in.next(), in.next()};
      boolean same =
          skipSubject != null
              && id == skipRuleId
              && length == skipSubject.length
              && Arrays.equals(table, at, at + length, skipSubject, 0, length);
      if (!same && algorithm.untilFreshNanos(state, nowNanos) > 0) {
        out.write(table, start, in.position() - start);
      }
    }
  }

  private static void writeEntry(
      ByteArrayOutputStream out, int ruleId, byte[] subject, long[] state, long windowNanos) {
    Varints.write(out, subject.length);
    out.write(subject, 0, subject.length);
    Varints.write(out, ruleId);
    Varints.write(out, Math.floorDiv(state[0], windowNanos));
    Varints.write(out, state[1]);
    Varints.write(out, state[2]);
  }

  private static void checkFormat(byte[] table) {
    if (table.length == 0 || table[0] != FORMAT) {
      throw new IllegalArgumentException("unknown bucket table format");
    }
  }
}
