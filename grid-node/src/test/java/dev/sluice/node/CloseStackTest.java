package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CloseStackTest {
  @Test
  void close_lastPushedFirst_aFailingCloserDoesNotStopTheRest_secondCloseFindsNothing() {
    List<String> closed = new ArrayList<>();
    CloseStack started = new CloseStack();
    String member = started.push("member", "member", closed::add);
    started.push(
        "limiter",
        "limiter",
        name -> {
          closed.add(name);
          throw new IllegalStateException("already closed");
        });
    started.push("REST API", "REST API", closed::add);

    started.close();
    started.close();

    assertThat(member).isEqualTo("member");
    assertThat(closed).containsExactly("REST API", "limiter", "member");
  }
}
