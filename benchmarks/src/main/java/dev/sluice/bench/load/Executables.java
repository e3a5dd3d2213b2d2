package dev.sluice.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The programs the harness runs from the OS packages (redis-server, redis-benchmark, wrk): where
 * they are, and their versions for the report.
 */
final class Executables {
  private Executables() {}

  /** {@code name} on the PATH or in the usual places, if it is there. */
  static Optional<Path> find(String name) {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : (path + ":/usr/bin:/usr/local/bin:/usr/sbin").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
        return Optional.of(Path.of(dir, name));
      }
    }
    return Optional.empty();
  }

  /**
   * The version {@code name --version} prints after its name ({@code wrk 4.1.0 ...}, {@code
   * redis-benchmark 7.0.15}); "not installed", or "?" where it prints none.
   */
  static String version(String name) {
    Optional<Path> binary = find(name);
    if (binary.isEmpty()) {
      return "not installed";
    }
    try {
      Process p =
          new ProcessBuilder(binary.get().toString(), "--version")
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(5, TimeUnit.SECONDS);
      Matcher m = Pattern.compile(Pattern.quote(name) + " (\\S+)").matcher(out);
      return m.find() ? m.group(1) : "?";
    } catch (IOException e) {
      return "?";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "?";
    }
  }
}
