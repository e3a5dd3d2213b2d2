package dev.sluice.node.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.ArrayOutput;
import io.lettuce.core.protocol.CommandArgs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Lettuce example of docs/resp.md is this test's code: the region between {@code //
 * docs/resp.md: lettuce} and {@code // end} stands in the document verbatim (indentation aside),
 * and it answers the README's call as the document says. The same holds for the Jedis regions of
 * {@code RespClientExamplesTest}, which runs the other clients' examples.
 */
class RespDocsExamplesTest {
  private static final Path DOC = Path.of("..", "docs", "resp.md");

  @Test
  void lettuceExample_answersTheReadmeCall() {
    try (LocalRespServer server = new LocalRespServer()) {
      String uri = "redis://localhost:" + server.port();
      List<Object> answer;
      RedisClient client = RedisClient.create(uri);
      // docs/resp.md: lettuce
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        List<Object> reply =
            connection
                .sync()
                .dispatch(
                    () -> "CL.THROTTLE".getBytes(StandardCharsets.US_ASCII),
                    new ArrayOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).addKey("user123").add(15).add(30).add(60));
        // end
        answer = reply;
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
      assertThat(answer).containsExactly(0L, 16L, 15L, -1L, 2L);
    }
  }

  /**
   * The Java sources whose marked regions stand in the document: this test's (Lettuce) and {@code
   * RespClientExamplesTest}'s (Jedis, against three members).
   */
  private static final List<Path> SOURCES =
      List.of(
          Path.of("src/test/java/dev/sluice/node/resp/RespDocsExamplesTest.java"),
          Path.of("src/test/java/dev/sluice/node/RespClientExamplesTest.java"));

  @Test
  void everyMarkedRegion_standsInTheDocument() throws IOException {
    String doc = normalise(Files.readString(DOC, StandardCharsets.UTF_8));
    List<String> found = new ArrayList<>();
    for (Path file : SOURCES) {
      String source = Files.readString(file, StandardCharsets.UTF_8);
      Matcher region =
          Pattern.compile("// docs/resp\\.md: (\\S+)\\n(.*?)\\n\\s*// end", Pattern.DOTALL)
              .matcher(source);
      while (region.find()) {
        found.add(region.group(1));
        assertThat(doc)
            .as("docs/resp.md example '%s' of %s", region.group(1), file.getFileName())
            .contains(normalise(region.group(2)));
      }
    }
    assertThat(found).containsExactlyInAnyOrder("lettuce", "jedis", "jedis-cluster");
  }

  /** Each line without its indentation, so that the test's nesting may differ from the page's. */
  private static String normalise(String text) {
    return text.lines().map(String::strip).reduce((a, b) -> a + "\n" + b).orElse("");
  }
}
