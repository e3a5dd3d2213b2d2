package dev.sluice.helm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's podman, as it works on this project's machines (checked 2026-11-28), with every command
 * bounded in time.
 *
 * <ul>
 *   <li>{@code --runtime runc}: crun refuses the machines' hybrid cgroup layout.
 *   <li>{@link #MACHINE_LIMITS}: the bounding set lacks {@code CAP_SYS_RESOURCE}, so podman's
 *       default limits (raised above the host's) fail; these are within the host's.
 *   <li>No published port, ever: publishing one makes podman add firewall tables that slow every
 *       loopback connection on the machine. Containers run with {@code --network none} or in a
 *       {@link PodNetwork}, and are reached from inside their namespace with {@code nsenter}.
 * </ul>
 */
final class Podman {

  /** Resource limits this machine kind can grant; not the chart's (Kubernetes sets none). */
  static final List<String> MACHINE_LIMITS =
      List.of("--ulimit", "nofile=20000:20000", "--ulimit", "nproc=32768:32768");

  private Podman() {}

  record Result(int exitCode, String output, List<String> command) {
    Result ok() {
      if (exitCode != 0) {
        throw new AssertionError(
            String.join(" ", command) + " exited with " + exitCode + ":\n" + output);
      }
      return this;
    }

    String text() {
      return output.strip();
    }
  }

  static Result podman(Duration timeout, String... args) {
    return podman(timeout, List.of(args));
  }

  static Result podman(Duration timeout, List<String> args) {
    List<String> command = new ArrayList<>(List.of("podman", "--runtime", "runc"));
    command.addAll(args);
    return exec(timeout, command);
  }

  /** Runs {@code command}, killing it after {@code timeout}; output and errors together. */
  static Result exec(Duration timeout, List<String> command) {
    try {
      Path output = Files.createTempFile("sluice-podman-", ".out");
      try {
        Process process =
            new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
          throw new AssertionError(
              String.join(" ", command)
                  + " did not finish within "
                  + timeout
                  + ":\n"
                  + Files.readString(output, StandardCharsets.UTF_8));
        }
        return new Result(
            process.exitValue(), Files.readString(output, StandardCharsets.UTF_8), command);
      } finally {
        Files.deleteIfExists(output);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted: " + command, e);
    }
  }
}
