package dev.sluice.core.grid.transport;

import com.hazelcast.client.impl.clientside.HazelcastClientInstanceImpl;
import com.hazelcast.client.impl.clientside.HazelcastClientProxy;
import com.hazelcast.client.impl.protocol.ClientMessage;
import com.hazelcast.client.impl.spi.impl.ClientInvocation;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.InternalSerializationService;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.grid.member.DecideProcessor;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * Sends one batch of keys' requests to one member as a single {@link DecideBatchCodec} message,
 * from a Hazelcast client: the client half of {@link DecideBatchMessageTask}.
 *
 * <p>A member without Sluice's message task (an older node) answers "unrecognized client message"
 * without running anything; {@link #isUnsupported} then turns true for good, and callers go back to
 * {@code submitToKeys}. Like {@link ClientKeyInvoker} it uses Hazelcast's client internals,
 * compiled against the pinned version, and every client test sends its batches through it.
 */
final class ClientBatchInvoker {
  private final HazelcastClientInstanceImpl client;
  private final InternalSerializationService serialization;
  private final String mapName;
  private final int messageType;
  private volatile boolean unsupported;

  private ClientBatchInvoker(HazelcastClientInstanceImpl client, String mapName, int messageType) {
    this.client = client;
    this.serialization = client.getSerializationService();
    this.mapName = mapName;
    this.messageType = messageType;
  }

  /** An invoker for {@code mapName} over {@code hazelcast}, or null if it is not a client. */
  static @Nullable ClientBatchInvoker of(HazelcastInstance hazelcast, String mapName) {
    return of(hazelcast, mapName, DecideBatchCodec.REQUEST_MESSAGE_TYPE);
  }

  /** With another message type, for tests: one no member knows stands for an older member. */
  static @Nullable ClientBatchInvoker of(
      HazelcastInstance hazelcast, String mapName, int messageType) {
    if (hazelcast instanceof HazelcastClientProxy proxy && proxy.client != null) {
      return new ClientBatchInvoker(proxy.client, mapName, messageType);
    }
    return null;
  }

  boolean isUnsupported() {
    return unsupported;
  }

  /**
   * Decides {@code batch} (one command per key) on {@code member}. The answer is decoded and the
   * future completed on {@code completions}, not on the client thread that read the answer:
   * callbacks there would hold up other responses, and a synchronous call from one would wait for a
   * response that thread itself has to read. A member that does not know the message fails the
   * future with an {@link UnsupportedOperationException}, and nothing was counted.
   */
  CompletableFuture<Map<String, KeyOutcome>> decide(
      UUID member, DecideProcessor batch, Executor completions) {
    ClientMessage request =
        DecideBatchCodec.encodeRequest(messageType, mapName, serialization.toData(batch));
    CompletableFuture<Map<String, KeyOutcome>> answer = new CompletableFuture<>();
    new ClientInvocation(client, request, mapName, member)
        .invoke()
        .whenCompleteAsync(
            (response, failure) -> {
              if (failure != null) {
                Throwable cause = unwrap(failure);
                if (isRefusal(cause)) {
                  unsupported = true;
                }
                answer.completeExceptionally(cause);
                return;
              }
              try {
                answer.complete(outcomes(batch, DecideBatchCodec.decodeResponse(response)));
              } catch (RuntimeException e) {
                answer.completeExceptionally(e);
              }
            },
            completions);
    return answer;
  }

  /**
   * Whether {@code failure} is a member's refusal of the message ("unrecognized client message"):
   * the member ran nothing, so the batch may go another way. Any other failure may come after some
   * keys were decided.
   */
  static boolean isRefusal(Throwable failure) {
    Throwable cause = unwrap(failure);
    return cause instanceof UnsupportedOperationException
        && String.valueOf(cause.getMessage()).contains("Unrecognized client message");
  }

  private Map<String, KeyOutcome> outcomes(DecideProcessor batch, List<Data> answers) {
    if (answers.size() != batch.size()) {
      throw new IllegalStateException(
          "the member answered " + answers.size() + " keys of " + batch.size());
    }
    Map<String, KeyOutcome> byKey = new HashMap<>(batch.size() * 2);
    for (int i = 0; i < batch.size(); i++) {
      byKey.put(batch.key(i), serialization.toObject(answers.get(i)));
    }
    return byKey;
  }

  private static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
  }
}
