package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A page's console blocks, run: every {@code $ curl ...} line is sent to a server on loopback and
 * its answer compared with the one printed below it, so the page cannot drift. {@link ReadmeIT}
 * runs the README's against a node process, {@link RestWalkthroughTest} docs/rest-api.md's, and
 * other modules (the grid-node test-jar) their own pages' against their own servers.
 *
 * <p>Comparison: status line, every header shown and the body must match, except figures that
 * depend on the time between two calls (milliseconds within a second, seconds within one); a JSON
 * object body is compared field by field, any other body as printed. {@code localhost:8080} in a
 * command stands for the server's port.
 */
public final class ConsoleTranscript {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Set<String> MILLISECOND_FIELDS =
      Set.of("resetAfterMs", "retryAfterMs", "delayMs");

  /** Fields whose value is new on every run (a receipt's number is random): present, not equal. */
  private static final Set<String> FRESH_FIELDS = Set.of("receipt");

  private static final Set<String> SECOND_HEADERS = Set.of("x-ratelimit-reset", "retry-after");
  private static final Pattern RATELIMIT_T = Pattern.compile("^(.*;t=)(\\d+)$");
  private static final Pattern PIPE_GREP = Pattern.compile("^(.*?)\\s*\\|\\s*grep\\s+'([^']*)'$");

  private ConsoleTranscript() {}

  /** One {@code $ command} line and the answer printed under it. */
  public record Exchange(String command, String expected) {}

  public static List<Exchange> exchanges(String markdown) {
    List<Exchange> exchanges = new ArrayList<>();
    Matcher block = Pattern.compile("```console\\n(.*?)```", Pattern.DOTALL).matcher(markdown);
    while (block.find()) {
      String command = null;
      StringBuilder expected = new StringBuilder();
      for (String line : block.group(1).split("\n", -1)) {
        if (line.startsWith("$ ")) {
          if (command != null) {
            exchanges.add(new Exchange(command, expected.toString().strip()));
          }
          command = line.substring(2);
          expected.setLength(0);
        } else {
          expected.append(line).append('\n');
        }
      }
      if (command != null) {
        exchanges.add(new Exchange(command, expected.toString().strip()));
      }
    }
    return exchanges;
  }

  /** Runs one {@code curl} command line (with an optional {@code | grep 'regex'}) in Java. */
  public static String run(String commandLine, int port) {
    String grep = null;
    Matcher pipe = PIPE_GREP.matcher(commandLine);
    if (pipe.matches()) {
      commandLine = pipe.group(1);
      grep = pipe.group(2);
    }
    List<String> words = words(commandLine);
    assertThat(words.get(0)).as(commandLine).isEqualTo("curl");
    boolean includeHeaders = false;
    String method = null;
    String url = null;
    String data = null;
    List<String[]> headers = new ArrayList<>();
    for (int i = 1; i < words.size(); i++) {
      String word = words.get(i);
      switch (word) {
        case "-s" -> {}
        case "-i", "-si", "-is" -> includeHeaders = true;
        case "-X" -> method = words.get(++i);
        case "-H" -> headers.add(words.get(++i).split(":\\s*", 2));
        case "-d" -> data = words.get(++i);
        default -> {
          assertThat(word).as("unsupported curl argument in " + commandLine).doesNotStartWith("-");
          url = word;
        }
      }
    }
    String target = url.replace("localhost:8080", "127.0.0.1:" + port);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(TestNodes.uri(port, target.substring(target.indexOf('/'))));
    headers.forEach(header -> request.header(header[0], header[1]));
    if (data != null && headers.stream().noneMatch(h -> h[0].equalsIgnoreCase("Content-Type"))) {
      // What curl sends with -d unless told otherwise.
      request.header("Content-Type", "application/x-www-form-urlencoded");
    }
    String verb = method != null ? method : data != null ? "POST" : "GET";
    request.method(
        verb,
        data == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(data));
    TestNodes.Answer answer = TestNodes.send(request);

    StringBuilder out = new StringBuilder();
    if (includeHeaders) {
      out.append("HTTP/1.1 ").append(answer.status()).append('\n');
      answer
          .raw()
          .headers()
          .map()
          .forEach(
              (name, values) ->
                  values.forEach(
                      value -> out.append(name).append(": ").append(value).append('\n')));
      out.append('\n');
    }
    out.append(answer.body());
    if (grep == null) {
      return out.toString().strip();
    }
    Pattern filter = Pattern.compile(grep);
    return out.toString()
        .lines()
        .filter(line -> filter.matcher(line).find())
        .collect(Collectors.joining("\n"));
  }

  public static void assertSameAnswer(Exchange exchange, String actual) throws IOException {
    String expected = exchange.expected();
    String label = "$ " + exchange.command() + "\nactual:\n" + actual + "\n";
    if (expected.startsWith("HTTP/")) {
      String[] expectedParts = expected.split("\n\n", 2);
      String[] actualParts = actual.split("\n\n", 2);
      String[] expectedHead = expectedParts[0].split("\n");
      int expectedStatus = Integer.parseInt(expectedHead[0].split(" ")[1]);
      assertThat(Integer.parseInt(actualParts[0].split("\n")[0].split(" ")[1]))
          .as(label)
          .isEqualTo(expectedStatus);
      Map<String, String> actualHeaders = new HashMap<>();
      for (String line : actualParts[0].split("\n")) {
        int colon = line.indexOf(": ");
        if (colon > 0) {
          actualHeaders.put(
              line.substring(0, colon).toLowerCase(java.util.Locale.ROOT),
              line.substring(colon + 2));
        }
      }
      for (int i = 1; i < expectedHead.length; i++) {
        String name =
            expectedHead[i]
                .substring(0, expectedHead[i].indexOf(": "))
                .toLowerCase(java.util.Locale.ROOT);
        String value = expectedHead[i].substring(expectedHead[i].indexOf(": ") + 2);
        assertThat(actualHeaders).as(label).containsKey(name);
        assertHeader(label, name, value, actualHeaders.get(name));
      }
      assertBody(
          label,
          expectedParts.length > 1 ? expectedParts[1] : "",
          actualParts.length > 1 ? actualParts[1] : "");
    } else {
      assertBody(label, expected, actual);
    }
  }

  /** A JSON object field by field (time-dependent figures within a second); anything else as is. */
  private static void assertBody(String label, String expected, String actual) throws IOException {
    if (expected.startsWith("{")) {
      assertJson(label, expected, actual);
    } else {
      assertThat(actual).as(label).isEqualTo(expected);
    }
  }

  private static void assertHeader(String label, String name, String expected, String actual) {
    if (SECOND_HEADERS.contains(name)) {
      assertThat(Long.parseLong(actual))
          .as(label + name)
          .isBetween(Long.parseLong(expected) - 1, Long.parseLong(expected) + 1);
      return;
    }
    Matcher expectedT = RATELIMIT_T.matcher(expected);
    Matcher actualT = RATELIMIT_T.matcher(actual);
    if (name.equals("ratelimit") && expectedT.matches() && actualT.matches()) {
      assertThat(actualT.group(1)).as(label + name).isEqualTo(expectedT.group(1));
      long t = Long.parseLong(expectedT.group(2));
      assertThat(Long.parseLong(actualT.group(2))).as(label + name).isBetween(t - 1, t + 1);
      return;
    }
    assertThat(actual).as(label + name).isEqualTo(expected);
  }

  private static void assertJson(String label, String expectedText, String actualText)
      throws IOException {
    JsonNode expected = MAPPER.readTree(expectedText);
    JsonNode actual = MAPPER.readTree(actualText);
    assertThat(fieldNames(actual)).as(label).isEqualTo(fieldNames(expected));
    for (String field : fieldNames(expected)) {
      if (FRESH_FIELDS.contains(field)) {
        assertThat(actual.get(field).asText()).as(label + field).isNotEmpty();
      } else if (MILLISECOND_FIELDS.contains(field) && expected.get(field).asLong() > 0) {
        long millis = expected.get(field).asLong();
        assertThat(actual.get(field).asLong())
            .as(label + field)
            .isBetween(millis - 1_000, millis + 1_000);
      } else {
        assertThat(actual.get(field)).as(label + field).isEqualTo(expected.get(field));
      }
    }
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  /** Shell words: bare, 'single-quoted' or "double-quoted". */
  static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean inWord = false;
    char quote = 0;
    for (char c : line.toCharArray()) {
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        inWord = true;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        word.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(word.toString());
    }
    return words;
  }

  public static String section(String markdown, String heading) {
    int start = markdown.indexOf(heading + "\n");
    assertThat(start).as("a '" + heading + "' section").isNotNegative();
    int end = markdown.indexOf("\n## ", start + heading.length());
    return markdown.substring(start, end < 0 ? markdown.length() : end);
  }
}
