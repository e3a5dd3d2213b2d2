package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A server that cannot start becomes a "not run" reason, asked for once and remembered. */
class ServersTest {

  @Test
  void node_jarMissing_isNotRunWithTheReasonEveryTime(@TempDir Path dir) {
    try (Servers servers = new Servers(dir.resolve("logs"), dir.resolve("no-such-node.jar"))) {
      assertThatThrownBy(servers::node)
          .isInstanceOf(Servers.NotRunException.class)
          .hasMessageContaining("no-such-node.jar does not exist");
      assertThatThrownBy(servers::node)
          .isInstanceOf(Servers.NotRunException.class)
          .hasMessageContaining("does not exist");
    }
  }
}
