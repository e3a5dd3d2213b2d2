package dev.sluice.client;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.sluice.core.architecture.Arrows;
import org.junit.jupiter.api.Test;

/**
 * client-sdk's share of the arrows of docs/architecture.md ({@link Arrows}), on its compiled main
 * classes.
 */
class ArchitectureTest {
  private static final JavaClasses CLASSES = Arrows.mainClasses("dev.sluice.client");

  @Test
  void packages_importEachOtherInNoLoop() {
    Arrows.PACKAGES_FREE_OF_CYCLES.check(CLASSES);
  }

  @Test
  void dependsOnTheCoreOnly() {
    Arrows.CLIENT_KNOWS_NO_REST_OR_NODE.check(CLASSES);
  }

  @Test
  void everyLimiter_isAPipeline() {
    Arrows.LIMITERS_ARE_PIPELINES.check(CLASSES);
  }

  @Test
  void surfaces_goThroughThePipeline_notTheAlgorithms() {
    Arrows.SURFACES_GO_THROUGH_THE_PIPELINE.check(CLASSES);
  }

  @Test
  void hazelcastInternals_onlyInTheGridTransport() {
    Arrows.HAZELCAST_INTERNALS_ONLY_IN_TRANSPORT.check(CLASSES);
  }

  /**
   * The HTTP gate is written once, free of every server API, so that each adapter (and the Spring
   * Boot starter's, Spring Cloud Gateway's) is a thin translation onto it.
   */
  @Test
  void theGate_knowsNoServerApi() {
    noClasses()
        .that()
        .haveNameMatching(
            "dev\\.sluice\\.client\\.middleware\\."
                + "(RateLimitGate|Admission|GateRequest|KeyExtractor|TrustedProxies|GateBodies)"
                + "(\\$.*)?")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "jakarta.servlet..", "io.javalin..", "org.springframework..", "reactor..")
        .because("adapters translate a server's request into a GateRequest; the gate knows none")
        .check(CLASSES);
  }
}
