package dev.sluice.bench.memory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A class-histogram difference attributed to the parts of a map entry, per key.
 *
 * <p>Most classes belong to one part. Two are shared: {@code HeapData} (every stored key, and every
 * value in a BINARY map) and {@code byte[]} (their payload arrays). {@code HeapData} is split by
 * count (one per stored key copy goes to the key, the rest to the value); {@code byte[]} by the
 * sizes the probe computes by serializing the stored keys and values (16-byte array header plus
 * payload, rounded up to 8), and whatever the computation does not explain stays visible as "other
 * byte[]". {@code ConcurrentHashMap$Node} and its table are attributed to the expiry system's map
 * of {@code ExpiryMetadata} (the only ConcurrentHashMap that grows per entry); a run without TTL
 * shows that they then do not grow.
 */
final class Breakdown {
  static final String RECORD = "record";
  static final String KEY = "key (HeapData + byte[])";
  static final String VALUE = "value";
  static final String NODE = "storage map node";
  static final String TABLE = "storage map table slots";
  static final String EXPIRY_METADATA = "expiry: ExpiryMetadataImpl";
  static final String EXPIRY_NODE = "expiry: map node";
  static final String EXPIRY_TABLE = "expiry: map table slots";
  static final String OTHER_BYTES = "other byte[]";
  static final String OTHER = "other classes";

  private static final List<String> ORDER =
      List.of(
          RECORD,
          KEY,
          VALUE,
          NODE,
          TABLE,
          EXPIRY_METADATA,
          EXPIRY_NODE,
          EXPIRY_TABLE,
          OTHER_BYTES,
          OTHER);

  private static final String HEAP_DATA = "com.hazelcast.internal.serialization.impl.HeapData";
  private static final String BYTES = "[B";

  final long keys;
  final Map<String, Long> parts = new LinkedHashMap<>();
  final Map<String, ClassHistogram.Entry> delta;
  final long histogramBytes;
  final boolean valueHeapData;
  final List<String> valueClasses;

  /**
   * @param keys the logical keys (what "per key" divides by)
   * @param storedEntries map entries held in the JVM, backups included
   * @param keyArrayBytes computed bytes of the stored keys' payload arrays, backups included
   * @param valueArrayBytes computed bytes of the stored values' arrays, backups included
   * @param valueHeapData whether values are {@code HeapData} (BINARY) or objects (OBJECT)
   * @param valueClasses classes that only the stored values use (OBJECT format)
   */
  Breakdown(
      Map<String, ClassHistogram.Entry> delta,
      long keys,
      long storedEntries,
      long keyArrayBytes,
      long valueArrayBytes,
      boolean valueHeapData,
      List<String> valueClasses) {
    this.keys = keys;
    this.delta = delta;
    this.valueHeapData = valueHeapData;
    this.valueClasses = valueClasses;
    ORDER.forEach(part -> parts.put(part, 0L));
    long total = 0;
    for (Map.Entry<String, ClassHistogram.Entry> e : delta.entrySet()) {
      String cls = e.getKey();
      long bytes = e.getValue().bytes();
      total += bytes;
      if (cls.equals(HEAP_DATA)) {
        long shallow = e.getValue().instances() == 0 ? 16 : bytes / e.getValue().instances();
        long keyPart = storedEntries * shallow;
        add(KEY, keyPart);
        add(valueHeapData ? VALUE : OTHER, bytes - keyPart);
      } else if (cls.equals(BYTES)) {
        add(KEY, keyArrayBytes);
        add(VALUE, valueArrayBytes);
        add(OTHER_BYTES, bytes - keyArrayBytes - valueArrayBytes);
      } else {
        add(partOf(cls, valueClasses), bytes);
      }
    }
    this.histogramBytes = total;
  }

  private void add(String part, long bytes) {
    parts.merge(part, bytes, Long::sum);
  }

  static String partOf(String cls, List<String> valueClasses) {
    if (cls.startsWith("com.hazelcast.map.impl.record.")) {
      return RECORD;
    }
    if (valueClasses.contains(cls)) {
      return VALUE;
    }
    return switch (cls) {
      case "com.hazelcast.internal.util.ConcurrentReferenceHashMap$HashEntry" -> NODE;
      case "[Lcom.hazelcast.internal.util.ConcurrentReferenceHashMap$HashEntry;" -> TABLE;
      case "com.hazelcast.map.impl.recordstore.expiry.ExpiryMetadataImpl" -> EXPIRY_METADATA;
      case "java.util.concurrent.ConcurrentHashMap$Node" -> EXPIRY_NODE;
      case "[Ljava.util.concurrent.ConcurrentHashMap$Node;" -> EXPIRY_TABLE;
      default -> OTHER;
    };
  }

  double perKey(String part) {
    return parts.get(part) / (double) keys;
  }

  double totalPerKey() {
    return histogramBytes / (double) keys;
  }

  /** The breakdown as a Markdown table, and the classes behind it (≥ 0.5 B per key). */
  String describe() {
    StringBuilder out = new StringBuilder();
    out.append("| part | bytes per key |\n|---|---:|\n");
    for (String part : ORDER) {
      out.append(String.format(Locale.ROOT, "| %s | %.1f |%n", part, perKey(part)));
    }
    out.append(String.format(Locale.ROOT, "| **total (histogram)** | **%.1f** |%n", totalPerKey()));
    out.append(
        "\nclasses that grew by at least 0.5 B per key (instances per key, bytes per key):\n");
    List<Map.Entry<String, ClassHistogram.Entry>> rows = new ArrayList<>(delta.entrySet());
    rows.sort(Comparator.comparingLong(e -> -Math.abs(e.getValue().bytes())));
    for (Map.Entry<String, ClassHistogram.Entry> e : rows) {
      double perKey = e.getValue().bytes() / (double) keys;
      if (Math.abs(perKey) >= 0.5) {
        out.append(
            String.format(
                Locale.ROOT,
                "  %-72s %,11d %7.3f %8.1f%n",
                e.getKey(),
                e.getValue().instances(),
                e.getValue().instances() / (double) keys,
                perKey));
      }
    }
    return out.toString();
  }

  /** {@code part=bytesPerKey;...} for the RESULT line. */
  String compact() {
    StringBuilder out = new StringBuilder();
    for (String part : ORDER) {
      out.append(String.format(Locale.ROOT, "%s=%.1f;", shortName(part), perKey(part)));
    }
    return out.toString();
  }

  static String shortName(String part) {
    return switch (part) {
      case RECORD -> "record";
      case KEY -> "key";
      case VALUE -> "value";
      case NODE -> "node";
      case TABLE -> "table";
      case EXPIRY_METADATA -> "expiryMeta";
      case EXPIRY_NODE -> "expiryNode";
      case EXPIRY_TABLE -> "expiryTable";
      case OTHER_BYTES -> "otherBytes";
      default -> "other";
    };
  }

  static long align8(long bytes) {
    return (bytes + 7) & ~7L;
  }
}
