package dev.sluice.core.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every product package opens with a guide: a {@code package-info.java} that says what the package
 * is and where to start reading, and marks it {@code @NullMarked} (what is not {@code @Nullable} is
 * never null). Read from the source tree of every product module, so a new package cannot land
 * without one.
 */
class PackageGuideTest {
  private static final List<String> PRODUCT_MODULES =
      List.of("limiter-core", "client-sdk", "rest-api", "grid-node", "spring-boot-starter");

  @Test
  void everyProductPackage_hasAGuideThatSaysWhereToStart() {
    List<Path> packages = productPackages();
    assertThat(packages).hasSizeGreaterThan(20);
    for (Path dir : packages) {
      Path info = dir.resolve("package-info.java");
      assertThat(info).as("package-info.java of %s", dir).exists();
      String text = read(info);
      assertThat(text.toLowerCase(Locale.ROOT))
          .as("%s says where to start", info)
          .containsAnyOf("start here", "start with", "start at", "where to start");
      assertThat(text).as("%s is null-marked", info).contains("@NullMarked");
    }
  }

  /** Every directory under a product module's {@code src/main/java} that holds a Java class. */
  private static List<Path> productPackages() {
    Path root = Path.of("..").toAbsolutePath().normalize();
    return PRODUCT_MODULES.stream()
        .map(module -> root.resolve(module).resolve("src/main/java"))
        .flatMap(PackageGuideTest::walk)
        .filter(file -> file.toString().endsWith(".java"))
        .map(Path::getParent)
        .distinct()
        .sorted()
        .toList();
  }

  private static Stream<Path> walk(Path dir) {
    try {
      return Files.walk(dir).toList().stream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
