package dev.sluice.bench.load;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time of this JVM and of other processes, for the probes' CPU-per-decision columns. */
public final class ProcessCpu {
  private ProcessCpu() {}

  /** This JVM's CPU time, user and kernel, in nanoseconds. */
  public static long ownNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** utime + stime of {@code pid} from /proc (Linux), in nanoseconds (clock ticks of 10 ms). */
  public static long ofPid(long pid) throws Exception {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    return ticks * 10_000_000L;
  }
}
