package dev.sluice.bench.load;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.ArrayOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** {@code CL.THROTTLE} on a grid node's Redis port, for the Java driver's saturating runs. */
final class RespThrottleContender extends ThrottleContender {
  private static final ProtocolKeyword THROTTLE =
      new ProtocolKeyword() {
        @Override
        public byte[] getBytes() {
          return "CL.THROTTLE".getBytes(StandardCharsets.US_ASCII);
        }

        @Override
        public String toString() {
          return "CL.THROTTLE";
        }
      };

  RespThrottleContender(String name, int port, ThrottleParameters parameters) {
    super(name, port, parameters);
  }

  @Override
  protected List<Object> throttle(String key, List<String> parameters) {
    CommandArgs<String, String> args =
        new CommandArgs<>(StringCodec.UTF8).addKey(key).addValues(parameters);
    return connection.sync().dispatch(THROTTLE, new ArrayOutput<>(StringCodec.UTF8), args);
  }
}
