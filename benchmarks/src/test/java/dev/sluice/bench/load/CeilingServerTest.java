package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ceiling runs as its own process and answers with exactly the body and headers given. */
class CeilingServerTest {

  @Test
  void ceiling_separateProcess_answersTheGivenBodyUnderTheLoadDriver(@TempDir Path logs)
      throws Exception {
    String body = "{\"allowed\":true,\"limit\":5,\"remaining\":4,\"rule\":\"bench\"}";
    int port = ManagedProcess.freePort();
    List<String> main =
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            CeilingServer.class.getName(),
            Integer.toString(port),
            Base64.getEncoder().encodeToString(body.getBytes(StandardCharsets.UTF_8)),
            "RateLimit=\"bench\";r=4;t=1");
    try (ManagedProcess ceiling =
        ManagedProcess.start(
            "ceiling", ManagedProcess.javaCommand(List.of("-Xmx128m"), main), Map.of(), logs)) {
      ceiling.awaitPort(port, Duration.ofSeconds(30));

      HttpResponse<String> answer =
          HttpClient.newHttpClient()
              .send(
                  HttpCheckContender.request(
                      URI.create("http://127.0.0.1:" + port + "/v1/check"), "bench", "k"),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(answer.body()).isEqualTo(body);
      assertThat(answer.headers().firstValue("RateLimit")).hasValue("\"bench\";r=4;t=1");

      KeySpace keys = KeySpace.uniform("k", 10);
      Workload load = new Workload(2, keys, Duration.ZERO, Duration.ofSeconds(10), 1, 200, false);
      try (HttpCheckContender http = new HttpCheckContender("ceiling", port, "bench", keys)) {
        RoundResult round = LoadDriver.round(http, load, Duration.ofSeconds(10), 200);
        assertThat(round.count(Outcome.ALLOWED)).isEqualTo(200);
      }
      assertThat(ceiling.isAlive()).isTrue();
    }
  }
}
