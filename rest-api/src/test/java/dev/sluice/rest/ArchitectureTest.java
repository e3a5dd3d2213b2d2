package dev.sluice.rest;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.sluice.core.architecture.Arrows;
import org.junit.jupiter.api.Test;

/**
 * rest-api's share of the arrows of docs/architecture.md ({@link Arrows}), on its compiled main
 * classes.
 */
class ArchitectureTest {
  private static final JavaClasses CLASSES = Arrows.mainClasses("dev.sluice.rest");

  @Test
  void packages_importEachOtherInNoLoop() {
    Arrows.PACKAGES_FREE_OF_CYCLES.check(CLASSES);
  }

  @Test
  void dependsOnTheCoreOnly() {
    Arrows.REST_KNOWS_NO_NODE_OR_CLIENT.check(CLASSES);
  }

  @Test
  void knowsNoHazelcast() {
    Arrows.REST_KNOWS_NO_HAZELCAST.check(CLASSES);
  }

  @Test
  void surfaces_goThroughThePipeline_notTheAlgorithms() {
    Arrows.SURFACES_GO_THROUGH_THE_PIPELINE.check(CLASSES);
  }

  @Test
  void hazelcastInternals_onlyInTheGridTransport() {
    Arrows.HAZELCAST_INTERNALS_ONLY_IN_TRANSPORT.check(CLASSES);
  }
}
