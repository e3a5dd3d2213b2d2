package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.client.HazelcastClient;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code build()} when no member answers: the Hazelcast client cannot create the limiter's map
 * proxies offline, so the build fails; it must fail within the connect timeout, say which cluster
 * and addresses it tried, and leave no Hazelcast client running (its non-daemon threads would keep
 * the application's JVM alive, one more per retry).
 */
class BuildWithoutGridTest {

  @Test
  void build_noMemberAnswers_failsNamingClusterAndAddresses_andLeavesNoClientRunning() {
    String clusterName = "test-" + UUID.randomUUID();
    int clientsBefore = HazelcastClient.getAllHazelcastClients().size();
    long startNanos = System.nanoTime();

    // Port 1 on loopback: nothing listens, the connection is refused at once.
    assertThatThrownBy(
            () ->
                SluiceClient.builder()
                    .addresses("127.0.0.1:1")
                    .clusterName(clusterName)
                    .connectTimeout(Duration.ofMillis(500))
                    .build())
        .isInstanceOf(GridUnavailableException.class)
        .hasMessageContaining("'" + clusterName + "'")
        .hasMessageContaining("[127.0.0.1:1]")
        .hasMessageContaining("connectTimeout 500ms");

    assertThat(Duration.ofNanos(System.nanoTime() - startNanos)).isLessThan(Duration.ofSeconds(10));
    assertThat(HazelcastClient.getAllHazelcastClients()).hasSize(clientsBefore);
  }
}
