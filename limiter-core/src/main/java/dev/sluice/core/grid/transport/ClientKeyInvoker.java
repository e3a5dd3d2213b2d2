package dev.sluice.core.grid.transport;

import com.hazelcast.client.impl.clientside.HazelcastClientInstanceImpl;
import com.hazelcast.client.impl.clientside.HazelcastClientProxy;
import com.hazelcast.client.impl.protocol.ClientMessage;
import com.hazelcast.client.impl.protocol.codec.MapSubmitToKeyCodec;
import com.hazelcast.client.impl.spi.impl.ClientInvocation;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.util.ThreadUtil;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * One entry processor on one key from a Hazelcast client, waited for by the calling thread with a
 * timeout: what {@code IMap.submitToKey(...).get(timeout)} does, minus one thread hand-off per
 * call.
 *
 * <h2>Why not the public API</h2>
 *
 * A client's {@code submitToKey} wraps the invocation's future in a second future and completes
 * that one from a task on Hazelcast's default executor. A caller waiting with a timeout reads the
 * inner future directly, so the task does nothing for it, but it still costs a pool thread's
 * wake-up per decision; on a 2-core machine that was 10 to 15 % of a client's decisions per second
 * (docs/decisions/client-sync-path.md). The synchronous {@code executeOnKey} has no such task but
 * also no timeout. This class sends the same {@code Map.SubmitToKey} request {@code submitToKey}
 * sends, through the same invocation service (smart routing to the owner, retries, backup
 * handling), and waits on the invocation's own future.
 *
 * <p>It uses Hazelcast's client internals, so it is compiled against the Hazelcast version the
 * parent pom pins: an upgrade that changes them fails the build, and the client tests run every
 * decision through it.
 */
final class ClientKeyInvoker {
  private final HazelcastClientInstanceImpl client;
  private final InternalSerializationService serialization;
  private final String mapName;

  private ClientKeyInvoker(HazelcastClientInstanceImpl client, String mapName) {
    this.client = client;
    this.serialization = client.getSerializationService();
    this.mapName = mapName;
  }

  /** An invoker for {@code mapName} over {@code hazelcast}, or null if it is not a client. */
  static @Nullable ClientKeyInvoker of(HazelcastInstance hazelcast, String mapName) {
    if (hazelcast instanceof HazelcastClientProxy proxy && proxy.client != null) {
      return new ClientKeyInvoker(proxy.client, mapName);
    }
    return null;
  }

  /**
   * Runs {@code processor} on {@code key}'s owner and returns its result.
   *
   * @throws TimeoutException if no answer came within the timeout (the processor may still run)
   * @throws ExecutionException with the invocation's failure as its cause
   */
  <R> R submitToKey(Object key, Object processor, long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    Data keyData = serialization.toData(key);
    ClientMessage request =
        MapSubmitToKeyCodec.encodeRequest(
            mapName, serialization.toData(processor), keyData, ThreadUtil.getThreadId());
    int partitionId = client.getClientPartitionService().getPartitionId(keyData);
    ClientMessage response =
        new ClientInvocation(client, request, mapName, partitionId).invoke().get(timeout, unit);
    return serialization.toObject(MapSubmitToKeyCodec.decodeResponse(response));
  }
}
