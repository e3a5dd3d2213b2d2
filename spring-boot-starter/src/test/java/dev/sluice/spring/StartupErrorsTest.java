package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A broken {@code sluice.*} property fails the start with Boot's report naming the property and the
 * reason, before anything starts: no grid member is left running and the web port is never bound.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupErrorsTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {}

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "sluice.rules[0].limit     | -1    | sluice.rules[0].limit     | must be",
        "sluice.rules[0].algorithm | magic | sluice.rules[0].algorithm | unknown algorithm 'magic'",
        "sluice.rules[0].scope     | wide  | sluice.rules[0].scope     | must be 'local' or 'global'",
        "sluice.rules[0].local-shares.eu | 0.5 | sluice.rules[0].scope | set scope: global",
        "sluice.gates[1].paths     | /x    | sluice.gates[1].rule      | a gate needs a rule",
        "sluice.gates[0].cost      | 0     | sluice.gates[0].cost      | must be at least 1, was 0",
        "sluice.call-timeout       | 0s    | sluice.call-timeout       | must be positive"
      })
  void brokenProperty_failsTheStartNamingIt_andNothingIsLeftRunning(
      String property, String value, String named, String reason, CapturedOutput output)
      throws IOException {
    String cluster = "starter-errors-" + UUID.randomUUID();
    int webPort = Http.freePort();
    SpringApplicationBuilder app =
        new SpringApplicationBuilder(App.class)
            .properties(
                "server.port=" + webPort,
                "server.address=127.0.0.1",
                "sluice.cluster-name=" + cluster,
                "sluice.embedded.port=" + Http.freePort(),
                "spring.cloud.gateway.server.webflux.enabled=false",
                "sluice.rules[0].name=hello",
                "sluice.rules[0].limit=3",
                "sluice.rules[0].window=1m",
                "sluice.gates[0].paths=/hello",
                "sluice.gates[0].rule=hello",
                property + "=" + value);

    assertThatThrownBy(app::run).isNotNull();

    assertThat(output.getOut())
        .contains("Property: " + named)
        .containsPattern("Reason: [^\\n]*" + Pattern.quote(reason));
    for (HazelcastInstance member : Hazelcast.getAllHazelcastInstances()) {
      assertThat(member.getConfig().getClusterName()).isNotEqualTo(cluster);
    }
    try (ServerSocket stillFree = new ServerSocket(webPort, 1, InetAddress.getLoopbackAddress())) {
      assertThat(stillFree.getLocalPort()).isEqualTo(webPort);
    }
  }
}
