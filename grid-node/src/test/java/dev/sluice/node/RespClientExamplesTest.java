package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.test.DebianPackages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.util.SafeEncoder;

/**
 * The client examples of docs/resp.md, run as written by real clients against three members on
 * loopback: Jedis's is this test's code (the region between {@code // docs/resp.md: jedis} and
 * {@code // end} stands in the document verbatim, checked by {@code RespDocsExamplesTest}); the
 * redis-py and ioredis blocks are read from the document, run by {@code python3} and {@code node}
 * with the port substituted, and what they print is compared with the comments the document puts
 * beside each print ({@code # 0 16 15 -1 2}).
 *
 * <p>Each test starts on a fresh key: the clock moves an hour first, after which every key the
 * examples touch is full again, as good as new.
 */
class RespClientExamplesTest {
  static final Path DOC = Path.of("..", "docs", "resp.md");

  /** Debian 12's redis-py: the one the document's redis-py example names. */
  static final String PYTHON_REDIS = "python3-redis";

  /** The ioredis the document's example names; 5.x runs on Debian 12's Node.js 18 too. */
  static final String IOREDIS = "ioredis@5.11.1";

  static final Duration PROCESS_TIMEOUT = Duration.ofSeconds(60);
  static final Duration NPM_TIMEOUT = Duration.ofMinutes(5);

  @RegisterExtension static final RespNode CLUSTER = RespNode.cluster(3);
  @TempDir static Path dir;

  @BeforeEach
  void freshKeys() {
    CLUSTER.clock.advance(Duration.ofHours(1));
  }

  @Test
  void jedisExample_answersTheReadmeCall_andItsClusterLineTheNext() {
    HostAndPort node = new HostAndPort("127.0.0.1", CLUSTER.respPort());
    boolean single;
    List<?> clustered;
    // docs/resp.md: jedis
    ProtocolCommand throttle = () -> SafeEncoder.encode("CL.THROTTLE");
    CommandArguments call = new CommandArguments(throttle).key("user123").add(15).add(30).add(60);
    try (RedisClient jedis = RedisClient.create(node)) {
      List<?> reply = (List<?>) jedis.executeCommand(call);
      boolean allowed = reply.get(0).equals(0L);
      // end
      assertThat(reply).isEqualTo(List.of(0L, 16L, 15L, -1L, 2L));
      single = allowed;
    }
    // docs/resp.md: jedis-cluster
    // Cluster mode: key() names the key that routes the call.
    try (RedisClusterClient cluster = RedisClusterClient.create(node)) {
      Object reply = cluster.executeCommand(call);
      // end
      assertThat(cluster.getClusterNodes()).as("nodes learnt from the seed").hasSize(3);
      clustered = (List<?>) reply;
    }
    assertThat(single).isTrue();
    assertThat(clustered).isEqualTo(List.of(0L, 16L, 14L, -1L, 4L));
  }

  @Test
  @Tag("multiprocess")
  @Timeout(value = 12, unit = TimeUnit.MINUTES) // installing python3-redis may take a while
  void redisPyExample_printsWhatTheDocumentSays() throws Exception {
    DebianPackages.require(PYTHON_REDIS);
    String block = fencedBlock("python");
    Path script = dir.resolve("example.py");
    Files.writeString(script, onThisNodesPort(block), StandardCharsets.UTF_8);
    // Debian's interpreter: python3-redis is installed for it, not for any other python3 on PATH.
    Run run =
        succeeded(
            run(List.of("/usr/bin/python3", script.toString()), dir, PROCESS_TIMEOUT), "python3");
    assertThat(run.output().lines()).containsExactlyElementsOf(printed(block, "#"));
  }

  @Test
  @Tag("multiprocess")
  @Timeout(value = 26, unit = TimeUnit.MINUTES) // two Debian installs (10 min each at most), npm
  void ioredisExample_printsWhatTheDocumentSays() throws Exception {
    DebianPackages.require("nodejs");
    if (!onPath("npm")) {
      DebianPackages.require("npm"); // Debian's nodejs comes without it; NodeSource's includes it
    }
    Path project = Files.createDirectories(dir.resolve("ioredis-example"));
    // No registry named: npm's own configuration says where packages come from. Without a
    // registry npm fails within a minute (one retry of a 20-second fetch), and the test is skipped.
    Run install =
        run(
            List.of(
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--no-save",
                "--fetch-timeout=20000",
                "--fetch-retries=1",
                IOREDIS),
            project,
            NPM_TIMEOUT);
    Assumptions.assumeTrue(
        install.finished() && install.exit() == 0,
        () -> "npm cannot install " + IOREDIS + ":\n" + install.output());
    String block = fencedBlock("js");
    Path script = project.resolve("example.js");
    Files.writeString(script, onThisNodesPort(block), StandardCharsets.UTF_8);
    Run run = succeeded(run(List.of("node", script.toString()), project, PROCESS_TIMEOUT), "node");
    assertThat(run.output().lines()).containsExactlyElementsOf(printed(block, "//"));
  }

  /** The document's one fenced block in {@code language}. */
  static String fencedBlock(String language) throws IOException {
    String doc = Files.readString(DOC, StandardCharsets.UTF_8);
    Matcher block =
        Pattern.compile("(?m)^```" + Pattern.quote(language) + "\\n(.*?)^```$", Pattern.DOTALL)
            .matcher(doc);
    assertThat(block.find()).as("a ```%s block in %s", language, DOC).isTrue();
    String found = block.group(1);
    assertThat(block.find()).as("only one ```%s block in %s", language, DOC).isFalse();
    return found;
  }

  /** The block with the document's port, 6380, replaced by the first node's. */
  static String onThisNodesPort(String block) {
    assertThat(block).contains("6380");
    return block.replace("6380", Integer.toString(CLUSTER.respPort()));
  }

  /**
   * What the block says its prints print: the comment after each line that prints ({@code print(}
   * in Python, {@code console.log(} in JavaScript), in order.
   */
  static List<String> printed(String block, String comment) {
    List<String> expected = new ArrayList<>();
    for (String line : block.lines().toList()) {
      String code = line.strip();
      if (code.startsWith("print(") || code.startsWith("console.log(")) {
        int at = line.lastIndexOf(" " + comment + " ");
        assertThat(at).as("the printed text in a comment after: %s", line).isPositive();
        expected.add(line.substring(at + comment.length() + 2));
      }
    }
    assertThat(expected).as("prints in the block").isNotEmpty();
    return expected;
  }

  /**
   * How a process ended: its exit status (-1 when it did not finish in time and was killed) and
   * what it printed, both streams.
   */
  record Run(boolean finished, int exit, String output) {}

  /**
   * Runs {@code command} in {@code workDir} with nothing on its standard input, its output (both
   * streams) collected in a file; killed, with whatever it started, after {@code timeout}.
   */
  static Run run(List<String> command, Path workDir, Duration timeout)
      throws IOException, InterruptedException {
    Path log = Files.createTempFile(dir, "run", ".log");
    Process process =
        new ProcessBuilder(command)
            .directory(workDir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(devNull()))
            .start();
    boolean finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (!finished) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    return new Run(finished, finished ? process.exitValue() : -1, output);
  }

  /** A run that must finish in time with exit status 0. */
  static Run succeeded(Run run, String what) {
    assertThat(run.finished()).as("%s finished in time; it said:\n%s", what, run.output()).isTrue();
    assertThat(run.exit()).as("%s exit status; it said:\n%s", what, run.output()).isZero();
    return run;
  }

  private static java.io.File devNull() {
    return new java.io.File("/dev/null");
  }

  private static boolean onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String entry : path.split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(entry, program))) {
        return true;
      }
    }
    return false;
  }
}
