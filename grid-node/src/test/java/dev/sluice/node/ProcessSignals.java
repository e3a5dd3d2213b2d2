package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Signals to the node processes a test started: SIGSTOP makes a member hang with its connections
 * open (what a long GC pause or a frozen VM looks like to its peers), SIGCONT lets it run again.
 */
final class ProcessSignals {
  private ProcessSignals() {}

  /**
   * The ids of this JVM's child processes: taken before and after a start, the difference is it.
   */
  static Set<Long> children() {
    return ProcessHandle.current()
        .children()
        .map(ProcessHandle::pid)
        .collect(Collectors.toCollection(HashSet::new));
  }

  /** {@code kill -<signal> <pid>}, checked. */
  static void send(String signal, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).as("kill -" + signal + " " + pid).isZero();
  }
}
