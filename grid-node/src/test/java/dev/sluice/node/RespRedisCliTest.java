package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.test.DebianPackages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code redis-cli}, Debian's, as a user types it against a freshly started node: redis-cell's
 * README example answers {@code 0 16 15 -1 2}; errors, RESP3 maps and the cluster view read as they
 * do from Redis.
 */
class RespRedisCliTest {
  @TempDir static Path dir;
  static SluiceNode node;

  @BeforeAll
  static void start() throws Exception {
    DebianPackages.require("redis-tools");
    node =
        RespNodes.start(
                1, ManualTimeSource.at(Instant.parse("2026-03-01T12:00:00Z")), dir, Map.of())
            .get(0);
  }

  @AfterAll
  static void stop() {
    if (node != null) {
      node.close();
    }
  }

  /** {@code redis-cli -p <port> args...}: what it prints. */
  private static String redisCli(String... args) throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(List.of("redis-cli", "-p", Integer.toString(node.respPort())));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getOutputStream().close();
    byte[] output = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("redis-cli finished").isTrue();
    return new String(output, StandardCharsets.UTF_8);
  }

  @Test
  void readmeExample_onAFreshNode_answers0_16_15_minus1_2() throws Exception {
    assertThat(redisCli("CL.THROTTLE", "user123", "15", "30", "60"))
        .isEqualTo("0\n16\n15\n-1\n2\n");
    assertThat(redisCli("--no-raw", "CL.THROTTLE", "user123", "15", "30", "60"))
        .isEqualTo(
            "1) (integer) 0\n2) (integer) 16\n3) (integer) 14\n4) (integer) -1\n5) (integer) 4\n");
  }

  @Test
  void errorsMapsAndTheClusterView_readAsFromRedis() throws Exception {
    assertThat(redisCli("--no-raw", "CL.THROTTLE", "u", "-1", "30", "60"))
        .isEqualTo("(error) ERR value is not an integer or out of range\n");
    assertThat(redisCli("-3", "--no-raw", "SLUICE.CHECK", "login", "cli-user"))
        .startsWith("1# \"allowed\" => (integer) 1\n2# \"limit\" => (integer) 5\n");
    assertThat(redisCli("CLUSTER", "INFO")).contains("cluster_state:ok");
    assertThat(redisCli("-c", "CL.THROTTLE", "{slot}k", "0", "1", "60"))
        .isEqualTo("0\n1\n0\n-1\n60\n");
  }
}
