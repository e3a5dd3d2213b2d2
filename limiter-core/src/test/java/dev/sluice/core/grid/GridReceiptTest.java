package dev.sluice.core.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.Policy;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReleaseException;
import dev.sluice.core.Rule;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Receipts on a grid of three members and a client: the secret that seals them is the cluster's, so
 * a receipt a check answered through one member, or through a client, is given back through any
 * other, once; and an answer from a lease carries one whose release undoes that lease's permit at
 * the owner.
 */
class GridReceiptTest {
  private static GridTestCluster cluster;
  private static GridRateLimiter first;
  private static GridRateLimiter third;
  private static GridRateLimiter client;

  @BeforeAll
  static void start() {
    cluster = GridTestCluster.start(3);
    first = cluster.limiter(0);
    third = cluster.limiter(2);
    HazelcastInstance hazelcastClient = cluster.newClient();
    client = new GridRateLimiter(hazelcastClient);
    first.rules().put(new Rule("api", Policy.of(100, Duration.ofHours(1))));
  }

  @AfterAll
  static void stop() {
    client.close();
    cluster.close();
  }

  @Test
  void receipt_issuedThroughOneMember_isGivenBackThroughAnother_once() {
    Receipt receipt = first.tryAcquire("api", "across-members", 5).receipt();

    assertThat(third.release(Receipt.parse(receipt.encode())).remaining()).isEqualTo(100);
    ReleaseException replay =
        catchThrowableOfType(ReleaseException.class, () -> client.release(receipt));
    assertThat(replay.reason()).isEqualTo(ReleaseException.Reason.SPENT);
  }

  @Test
  void receipt_issuedThroughAClient_isGivenBackThroughAMember() {
    Receipt receipt = client.tryAcquire("api", "from-a-client", 7).receipt();

    assertThat(first.release(Receipt.parse(receipt.encode())).remaining()).isEqualTo(100);
    assertThat(third.peek("api", "from-a-client").remaining()).isEqualTo(100);
  }

  @Test
  void answerFromALease_carriesAReceipt_whoseReleaseGivesThatPermitBack() {
    Decision leased = null;
    for (int i = 0; i < 40 && leased == null; i++) {
      Decision decision = first.tryAcquire("api", "leased");
      if (decision.decidedBy() == DecidedBy.LEASE) {
        leased = decision;
      }
    }
    assertThat(leased).as("a hot key is answered from a lease").isNotNull();
    Receipt receipt = leased.receipt();
    assertThat(receipt.leaseNanos()).isPositive();
    long before = third.peek("api", "leased").remaining();

    assertThat(third.release(receipt).remaining()).isEqualTo(before + 1);
    assertThat(catchThrowableOfType(ReleaseException.class, () -> third.release(receipt)).reason())
        .isEqualTo(ReleaseException.Reason.SPENT);
    assertThat(third.peek("api", "leased").remaining()).isEqualTo(before + 1);
  }
}
