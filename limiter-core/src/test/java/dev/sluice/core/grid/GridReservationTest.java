package dev.sluice.core.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.Reservation;
import dev.sluice.core.ReservationException;
import dev.sluice.core.Rule;
import dev.sluice.core.StateKey;
import dev.sluice.core.test.Seeds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Reservations on three members, on the manual clock (one window throughout): many threads on every
 * member reserve estimates on one key and commit actual costs above and below them, and what the
 * key counts at the end is exactly the sum of the committed costs; a reservation committed through
 * one member cannot be committed again through another; when the key's owner dies after a
 * reservation, the estimate stays counted (the backup holds the ledger) and it is committable.
 */
@ExtendWith(Seeds.class)
class GridReservationTest {
  private static final long LIMIT = 100_000;
  private static final Policy TOKENS =
      Policy.builder()
          .algorithm(Algorithm.FIXED_WINDOW)
          .limit(LIMIT)
          .window(Duration.ofHours(1))
          .build();

  private GridTestCluster cluster;

  @BeforeEach
  void start() {
    cluster = GridTestCluster.start(3);
    cluster.limiter(0).rules().put(new Rule("tokens", TOKENS));
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  /**
   * 3 members × 6 threads × 60 rounds: reserve 1 to 10, commit 0 to 12 (refunds and charges). The
   * clock stands still, so every reservation is committed in the window it was counted in: the
   * key's count must be the committed costs' sum, to the permit.
   */
  @Test
  void threeMembersManyThreads_theKeyCountsExactlyWhatWasCommitted() throws Exception {
    long seed = Seeds.seed();
    AtomicLong committed = new AtomicLong();
    AtomicLong reservations = new AtomicLong();
    ExecutorService threads = Executors.newFixedThreadPool(18);
    try {
      List<Future<?>> work = new ArrayList<>();
      for (int t = 0; t < 18; t++) {
        GridRateLimiter limiter = cluster.limiter(t % 3);
        SplittableRandom random = new SplittableRandom(seed + t);
        work.add(
            threads.submit(
                () -> {
                  for (int round = 0; round < 60; round++) {
                    long estimate = 1 + random.nextInt(10);
                    long actual = random.nextInt(13);
                    Reservation held =
                        limiter.reserve("tokens", "team", estimate, Duration.ofMinutes(5));
                    assertThat(held.allowed()).isTrue();
                    reservations.incrementAndGet();
                    limiter.commit(held.id(), actual);
                    committed.addAndGet(actual);
                  }
                  return null;
                }));
      }
      for (Future<?> one : work) {
        one.get(120, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(reservations.get()).as("seed %d", seed).isEqualTo(18 * 60);
    assertThat(cluster.limiter(1).peek("tokens", "team").remaining())
        .as("seed %d: the key counts the committed costs, %d", seed, committed.get())
        .isEqualTo(LIMIT - committed.get());
  }

  /** One commit wins wherever it is sent; the second, through another member, changes nothing. */
  @Test
  void commitThroughAnotherMember_isRefusedAsCommittedAlready() {
    Reservation held = cluster.limiter(0).reserve("tokens", "team", 50, Duration.ofMinutes(5));
    assertThat(cluster.limiter(1).commit(held.id(), 20).remaining()).isEqualTo(LIMIT - 20);
    assertThatThrownBy(() -> cluster.limiter(2).commit(held.id(), 0))
        .isInstanceOfSatisfying(
            ReservationException.class,
            e -> assertThat(e.reason()).isEqualTo(ReservationException.Reason.COMMITTED));
    assertThat(cluster.limiter(2).peek("tokens", "team").remaining()).isEqualTo(LIMIT - 20);
  }

  /**
   * The ledger lives in the key's state, so it has the state's backup: the key's owner dies after
   * the reservation, and through a surviving member it is still counted and committable once.
   */
  @Test
  void ownerDies_theReservationSurvivesInTheBackup() {
    String stateKey = StateKey.of("tokens", "team");
    int owner = -1;
    for (int i = 0; i < cluster.members.size(); i++) {
      if (cluster
          .members
          .get(i)
          .getPartitionService()
          .getPartition(stateKey)
          .getOwner()
          .localMember()) {
        owner = i;
      }
    }
    assertThat(owner).isNotNegative();
    // Right after start the members are still building backups: wait until every partition has
    // its backup, as a cluster that lost a member would have to.
    cluster.awaitSafe();
    GridRateLimiter survivor = cluster.limiter((owner + 1) % 3);
    Reservation held = cluster.limiter(owner).reserve("tokens", "team", 40, Duration.ofMinutes(5));
    cluster.members.get(owner).getLifecycleService().terminate();

    Decision state = survivor.peek("tokens", "team");
    assertThat(state.remaining()).as("the estimate is still counted").isEqualTo(LIMIT - 40);
    assertThat(survivor.commit(held.id(), 10).remaining()).isEqualTo(LIMIT - 10);
    assertThatThrownBy(() -> survivor.commit(held.id(), 10))
        .isInstanceOf(ReservationException.class);
  }
}
