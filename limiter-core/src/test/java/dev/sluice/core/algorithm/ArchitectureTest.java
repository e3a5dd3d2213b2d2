package dev.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The algorithms are pure (DESIGN §1): nothing under {@code dev.sluice.core.algorithm} may use
 * Hazelcast. Checked twice: in the sources (imports and fully qualified names) and in the compiled
 * classes' constant pools, which name every class a class refers to however it was written.
 */
class ArchitectureTest {
  private static final Path SOURCES = Path.of("src/main/java/dev/sluice/core/algorithm");
  private static final Path CLASSES = Path.of("target/classes/dev/sluice/core/algorithm");

  @Test
  void algorithmSources_mentionNoHazelcastPackage() throws IOException {
    List<Path> sources = files(SOURCES, ".java");
    assertThat(sources)
        .as("sources found under %s", SOURCES.toAbsolutePath())
        .hasSizeGreaterThan(8);
    List<String> offenders =
        sources.stream()
            .filter(source -> read(source).contains("com.hazelcast"))
            .map(Path::toString)
            .collect(Collectors.toList());
    assertThat(offenders).as("algorithm sources that refer to com.hazelcast").isEmpty();
  }

  @Test
  void algorithmClasses_referToNoHazelcastClass() throws IOException {
    List<Path> classes = files(CLASSES, ".class");
    assertThat(classes)
        .as("classes found under %s", CLASSES.toAbsolutePath())
        .hasSizeGreaterThan(8);
    List<String> offenders =
        classes.stream()
            .filter(
                file -> {
                  // Class references in the constant pool are internal names: com/hazelcast/...
                  String pool = new String(readBytes(file), StandardCharsets.ISO_8859_1);
                  return pool.contains("com/hazelcast/") || pool.contains("Lcom/hazelcast");
                })
            .map(Path::toString)
            .collect(Collectors.toList());
    assertThat(offenders).as("algorithm classes that refer to com.hazelcast").isEmpty();
  }

  @Test
  void scanner_wouldSeeAHazelcastReference() {
    // The check above cannot pass vacuously: this test's own class refers to no Hazelcast type,
    // but a class that does (the one below, compiled into test-classes) is caught.
    Path offender =
        Path.of("target/test-classes/dev/sluice/core/algorithm/ArchitectureTest$Offender.class");
    String pool = new String(readBytes(offender), StandardCharsets.ISO_8859_1);
    assertThat(pool).contains("com/hazelcast/");
  }

  /** Refers to a Hazelcast type, to prove that the scan sees such references. */
  @SuppressWarnings("unused")
  private static final class Offender {
    com.hazelcast.map.IMap<String, String> map;
  }

  private static List<Path> files(Path root, String suffix) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(p -> p.toString().endsWith(suffix)).collect(Collectors.toList());
    }
  }

  private static String read(Path file) {
    return new String(readBytes(file), StandardCharsets.UTF_8);
  }

  private static byte[] readBytes(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new AssertionError("cannot read " + file, e);
    }
  }
}
