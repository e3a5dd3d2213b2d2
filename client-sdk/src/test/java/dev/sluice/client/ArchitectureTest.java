package dev.sluice.client;

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
  void dependsOnTheCoreOnly() {
    Arrows.CLIENT_KNOWS_NO_REST_OR_NODE.check(CLASSES);
  }

  @Test
  void hazelcastInternals_onlyInTheGridTransport() {
    Arrows.HAZELCAST_INTERNALS_ONLY_IN_TRANSPORT.check(CLASSES);
  }
}
