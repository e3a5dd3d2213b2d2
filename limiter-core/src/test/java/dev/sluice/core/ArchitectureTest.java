package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.sluice.core.architecture.Arrows;
import org.junit.jupiter.api.Test;

/**
 * limiter-core's share of the arrows of docs/architecture.md ({@link Arrows}), on its compiled main
 * classes.
 */
class ArchitectureTest {
  private static final JavaClasses CORE = Arrows.mainClasses("dev.sluice.core");

  @Test
  void algorithms_dependOnNothingButTheModelAndTheJdk() {
    Arrows.ALGORITHMS_ARE_PURE.check(CORE);
  }

  @Test
  void pipeline_localRuntimeAndModel_knowNoHazelcast() {
    Arrows.PIPELINE_KNOWS_NO_HAZELCAST.check(CORE);
  }

  @Test
  void core_knowsNoFrontEnd() {
    Arrows.CORE_KNOWS_NO_FRONT_END.check(CORE);
  }

  @Test
  void hazelcastInternals_onlyInTheGridTransport() {
    Arrows.HAZELCAST_INTERNALS_ONLY_IN_TRANSPORT.check(CORE);
  }

  @Test
  void packages_importEachOtherInNoLoop() {
    Arrows.PACKAGES_FREE_OF_CYCLES.check(CORE);
  }

  @Test
  void everyLimiter_isAPipeline() {
    Arrows.LIMITERS_ARE_PIPELINES.check(CORE);
  }

  /** The rules cannot pass vacuously: a class that breaks an arrow on purpose is caught. */
  @Test
  void brokenArrow_isCaught() {
    JavaClasses offender = new ClassFileImporter().importClasses(BrokenArrow.class);
    assertThatThrownBy(() -> Arrows.HAZELCAST_INTERNALS_ONLY_IN_TRANSPORT.check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("BrokenArrow");
  }

  @Test
  void wideDecorator_isCaught() {
    JavaClasses offender = new ClassFileImporter().importClasses(WideDecorator.class);
    assertThatThrownBy(() -> Arrows.LIMITERS_ARE_PIPELINES.check(offender))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("WideDecorator");
  }

  /** A decorator of the wide interface, as the client's layers were. */
  private abstract static class WideDecorator implements RateLimiter {}

  /** Refers to a Hazelcast internal type outside the transport package. */
  @SuppressWarnings("unused")
  private static final class BrokenArrow {
    com.hazelcast.internal.serialization.Data data;
  }
}
