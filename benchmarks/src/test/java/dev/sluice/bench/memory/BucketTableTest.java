package dev.sluice.bench.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Candidate (e)'s table, as timelines on a 2-per-second sliding window. */
class BucketTableTest {
  private static final Policy POLICY = Policy.of(2, Duration.ofSeconds(1));
  private static final LimiterAlgorithm ALGORITHM = LimiterAlgorithm.of(POLICY);
  private static final long W = POLICY.windowNanos();
  private static final long T0 = 1_800_000_000L * 1_000_000_000L; // a window start

  private static byte[] subject(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static BucketTable.Result decide(byte[] table, String subject, long now) {
    return BucketTable.decide(table, 1, subject(subject), now, 1, ALGORITHM, W);
  }

  @Test
  void decide_keysInOneTable_countSeparately() {
    byte[] table = null;
    table = decide(table, "a", T0).table(); // a: 1
    table = decide(table, "b", T0).table(); // b: 1
    BucketTable.Result a2 = decide(table, "a", T0 + 1); // a: 2
    assertThat(a2.decision().allowed()).isTrue();
    table = a2.table();
    BucketTable.Result a3 = decide(table, "a", T0 + 2); // a: denied
    assertThat(a3.decision().allowed()).isFalse();
    assertThat(a3.changed()).isFalse();
    assertThat(a3.table()).isSameAs(table);
    assertThat(decide(table, "b", T0 + 3).decision().allowed()).isTrue();
    assertThat(BucketTable.count(table)).isEqualTo(2);
    assertThat(BucketTable.find(table, 1, subject("a"), W)).containsExactly(T0, 2, 0);
    assertThat(BucketTable.find(table, 2, subject("a"), W)).isNull();
  }

  @Test
  void decide_writeAfterAnotherKeyWentFresh_dropsIt() {
    byte[] table = decide(null, "idle", T0).table();
    // "idle" counted 1 in [T0, T0+W): it matters until T0 + 2W.
    table = decide(table, "busy", T0 + 2 * W - 1).table();
    assertThat(BucketTable.count(table)).isEqualTo(2);
    table = decide(table, "busy", T0 + 2 * W).table();
    assertThat(BucketTable.count(table)).isEqualTo(1);
    assertThat(BucketTable.find(table, 1, subject("idle"), W)).isNull();
  }

  @Test
  void compact_removesFreshStates_andNullWhenNoneLeft() {
    byte[] table = decide(null, "a", T0).table();
    table = decide(table, "b", T0 + W).table();
    assertThat(BucketTable.compact(table, T0 + 2 * W - 1, ALGORITHM, W)).isSameAs(table);
    byte[] compacted = BucketTable.compact(table, T0 + 2 * W, ALGORITHM, W);
    assertThat(BucketTable.count(compacted)).isEqualTo(1);
    assertThat(BucketTable.find(compacted, 1, subject("b"), W)).containsExactly(T0 + W, 1, 0);
    assertThat(BucketTable.compact(compacted, T0 + 3 * W, ALGORITHM, W)).isNull();
  }

  @Test
  void rebuild_withTheOwnersNowAndState_givesTheOwnersTable() {
    byte[] table = decide(null, "a", T0).table();
    table = decide(table, "b", T0 + 1).table();
    long now = T0 + 2 * W + 5; // "a" and "b" are fresh now
    table = decide(table, "c", T0 + W).table();
    BucketTable.Result owner = decide(table, "c", now);
    byte[] backup = BucketTable.rebuild(table, 1, subject("c"), owner.state(), now, ALGORITHM, W);
    assertThat(backup).isEqualTo(owner.table());
    assertThat(BucketTable.count(backup)).isEqualTo(1);
  }

  @Test
  void untilAllFresh_isTheLongestOfItsKeys() {
    byte[] table = decide(null, "a", T0).table();
    table = decide(table, "b", T0 + W).table();
    assertThat(BucketTable.untilAllFreshNanos(table, T0 + W, ALGORITHM, W)).isEqualTo(2 * W);
  }

  @Test
  void decide_randomTimeline_agreesWithOneStatePerKey() {
    long seed = System.nanoTime();
    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
    java.util.Map<String, long[]> separate = new java.util.HashMap<>();
    byte[] table = null;
    long now = T0;
    for (int i = 0; i < 5_000; i++) {
      now += random.nextLong(W / 4);
      String key = "k" + random.nextInt(20);
      long[] state = separate.computeIfAbsent(key, k -> ALGORITHM.newState());
      boolean expected = ALGORITHM.apply(state, now, 1).allowed();
      BucketTable.Result result = decide(table, key, now);
      assertThat(result.decision().allowed()).as("seed %d, step %d", seed, i).isEqualTo(expected);
      table = result.table();
      assertThat(BucketTable.count(table)).as("seed %d", seed).isLessThanOrEqualTo(20);
    }
  }
}
