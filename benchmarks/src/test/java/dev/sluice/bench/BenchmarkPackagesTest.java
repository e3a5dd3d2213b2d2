package dev.sluice.bench;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import dev.sluice.core.Decision;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Every class of the benchmarks module, main and test, lives under {@code dev.sluice.bench}. A
 * benchmark in a product package ({@code dev.sluice.core..}, {@code dev.sluice.client..}, ...)
 * would split that package across two jars to reach its package-private internals, and tie the
 * product's internals to a measurement nobody runs; what a benchmark needs of the product goes
 * through a public API or a documented public hook.
 */
class BenchmarkPackagesTest {
  static final ArchRule ONLY_BENCHMARK_PACKAGES =
      classes()
          .should()
          .resideInAPackage("dev.sluice.bench..")
          .because("a benchmark class in a product package splits that package");

  @Test
  void everyBenchmarkClass_livesUnderDevSluiceBench() {
    ONLY_BENCHMARK_PACKAGES.check(
        new ClassFileImporter()
            .importPaths(Path.of("target", "classes"), Path.of("target", "test-classes")));
  }

  /** The rule cannot pass vacuously: a class in a product package is caught. */
  @Test
  void aClassInAProductPackage_isCaught() {
    assertThatThrownBy(
            () ->
                ONLY_BENCHMARK_PACKAGES.check(
                    new ClassFileImporter().importClasses(Decision.class)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("dev.sluice.core.Decision");
  }
}
