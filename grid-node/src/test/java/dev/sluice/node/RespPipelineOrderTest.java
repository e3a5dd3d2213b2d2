package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.node.resp.RespWire;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A connection's checks take effect in the order it sent them, also when they arrive in many reads
 * and several batches are out at once (a connection shared by threads): against a real member on a
 * manual clock, which does not move, each key's answers count down one by one.
 */
class RespPipelineOrderTest {
  @RegisterExtension static final RespNode NODE = new RespNode();

  @Test
  void checksInManyWrites_answerEachKeyInTheOrderSent() {
    String prefix = UUID.randomUUID() + ":";
    int perKey = 150;
    String[] keys = {prefix + "a", prefix + "b", prefix + "c"};
    List<String> sent = new ArrayList<>();
    try (RespWire wire = new RespWire(NODE.respPort(), 10_000)) {
      for (int i = 0; i < perKey * keys.length; i++) {
        String key = keys[i % keys.length];
        sent.add(key);
        // max_burst 99: a limit of 100 per key, then denials, the clock standing still.
        wire.command("CL.THROTTLE", key, "99", "1", "60");
        if (i % 3 == 0) {
          LockSupport.parkNanos(50_000); // a read of its own now and then
        }
      }
      int[] seen = new int[keys.length];
      for (String key : sent) {
        int k = List.of(keys).indexOf(key);
        int n = seen[k]++;
        @SuppressWarnings("unchecked")
        List<Object> reply = (List<Object>) wire.read();
        // The n-th call on a key: admitted with 99 - n left while n < 100, then limited with 0.
        long limited = n < 100 ? 0 : 1;
        long remaining = n < 100 ? 99 - n : 0;
        assertThat(reply.subList(0, 3))
            .as("call %d on %s", n, key)
            .containsExactly(limited, 100L, remaining);
      }
    }
  }
}
