package dev.sluice.bench.memory;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A live-object class histogram of this JVM, as {@code jcmd <pid> GC.class_histogram} prints it,
 * taken in-process through the {@code DiagnosticCommand} MBean. Taking it runs a full GC first
 * (that is what "live" means), so two histograms taken before and after filling a store differ only
 * by what the store keeps, plus whatever else in the JVM changed meanwhile (reported as "other").
 *
 * <p>Sizes are the JVM's own shallow sizes: object headers, compressed references and 8-byte
 * alignment included, which is what matters for "bytes per key".
 */
record ClassHistogram(Map<String, Entry> byClass) {

  /** Instances and shallow bytes of one class. */
  record Entry(long instances, long bytes) {
    Entry minus(Entry other) {
      return new Entry(instances - other.instances, bytes - other.bytes);
    }
  }

  private static final Pattern LINE =
      Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)(?:\\s+\\(.*\\))?\\s*$");

  /** Runs {@code GC.class_histogram} on this JVM (a full GC, then a heap walk). */
  static ClassHistogram take() {
    return parse(takeText());
  }

  /**
   * The histogram as {@code jcmd} prints it. A probe that keeps the "before" histogram until it
   * takes the "after" one keeps it as a file, not on the heap, where it would be counted.
   */
  static String takeText() {
    try {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      ObjectName name = new ObjectName("com.sun.management:type=DiagnosticCommand");
      return (String)
          server.invoke(
              name,
              "gcClassHistogram",
              new Object[] {new String[0]},
              new String[] {String[].class.getName()});
    } catch (JMException e) {
      throw new IllegalStateException("GC.class_histogram failed: " + e, e);
    }
  }

  static ClassHistogram parse(String text) {
    Map<String, Entry> byClass = new HashMap<>();
    for (String line : text.split("\n")) {
      Matcher m = LINE.matcher(line);
      if (m.matches()) {
        // A class loaded by two loaders appears twice; add them up.
        byClass.merge(
            m.group(3),
            new Entry(Long.parseLong(m.group(1)), Long.parseLong(m.group(2))),
            (a, b) -> new Entry(a.instances + b.instances, a.bytes + b.bytes));
      }
    }
    if (byClass.isEmpty()) {
      throw new IllegalStateException("could not parse the class histogram:\n" + text);
    }
    return new ClassHistogram(byClass);
  }

  /** What changed from {@code before} to this histogram, class by class (zero rows left out). */
  Map<String, Entry> minus(ClassHistogram before) {
    Map<String, Entry> delta = new HashMap<>();
    Entry none = new Entry(0, 0);
    for (Map.Entry<String, Entry> e : byClass.entrySet()) {
      Entry d = e.getValue().minus(before.byClass.getOrDefault(e.getKey(), none));
      if (d.instances != 0 || d.bytes != 0) {
        delta.put(e.getKey(), d);
      }
    }
    for (Map.Entry<String, Entry> e : before.byClass.entrySet()) {
      if (!byClass.containsKey(e.getKey())) {
        delta.put(e.getKey(), none.minus(e.getValue()));
      }
    }
    return delta;
  }

  long totalBytes() {
    return byClass.values().stream().mapToLong(Entry::bytes).sum();
  }
}
