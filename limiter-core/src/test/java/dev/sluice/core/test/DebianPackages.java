package dev.sluice.core.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Real peers that some tests drive ({@code redis-cli}, podman, Chromium, promtool) come from
 * Debian's packages. A test that needs one calls {@link #require} first: the project's own script,
 * {@code .ci/ensure-packages}, installs what is missing, so the README's test command needs no
 * manual step on a fresh machine. Where it cannot (not root, no apt-get, no network), the test is
 * skipped with the script's reason, never failed for the machine's sake and never silently passed.
 *
 * <pre>{@code
 * @BeforeAll
 * static void redisCli() {
 *   DebianPackages.require("redis-tools");
 * }
 * }</pre>
 */
public final class DebianPackages {
  private static final long TIMEOUT_MINUTES = 10;

  private DebianPackages() {}

  /**
   * Makes sure {@code packages} are installed, or aborts the calling test (JUnit's assumption) with
   * the reason they cannot be.
   */
  public static void require(String... packages) {
    Path script = script();
    List<String> command = new ArrayList<>();
    command.add(script.toString());
    command.addAll(List.of(packages));
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      byte[] output;
      try (var in = process.getInputStream()) {
        output = in.readAllBytes();
      }
      if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        Assumptions.abort("installing " + String.join(" ", packages) + " took too long");
      }
      String said = new String(output, StandardCharsets.UTF_8).strip();
      Assumptions.assumeTrue(
          process.exitValue() == 0,
          () -> "needs Debian packages " + String.join(" ", packages) + ": " + said);
    } catch (IOException e) {
      Assumptions.abort("cannot run " + script + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      Assumptions.abort("interrupted while installing " + String.join(" ", packages));
    }
  }

  /** {@code .ci/ensure-packages} of this checkout, found upwards from the module's directory. */
  private static Path script() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve(".ci").resolve("ensure-packages");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        ".ci/ensure-packages not found above " + Path.of("").toAbsolutePath());
  }
}
