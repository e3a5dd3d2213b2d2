package dev.sluice.core.grid.transport;

import com.hazelcast.client.impl.protocol.MessageTaskFactory;
import com.hazelcast.client.impl.protocol.MessageTaskFactoryProvider;
import com.hazelcast.instance.impl.Node;
import com.hazelcast.internal.util.collection.Int2ObjectHashMap;
import com.hazelcast.spi.impl.NodeEngine;
import com.hazelcast.spi.impl.NodeEngineImpl;

/**
 * Registers Sluice's client messages with a member. Hazelcast finds this class through {@code
 * META-INF/services/com.hazelcast.client.impl.protocol.MessageTaskFactoryProvider} and calls the
 * {@link NodeEngine} constructor when the member starts, so every member with limiter-core on its
 * classpath answers {@link DecideBatchCodec} messages.
 */
public final class SluiceMessageTasks implements MessageTaskFactoryProvider {
  private final Int2ObjectHashMap<MessageTaskFactory> factories = new Int2ObjectHashMap<>();

  public SluiceMessageTasks(NodeEngine nodeEngine) {
    Node node = ((NodeEngineImpl) nodeEngine).getNode();
    factories.put(
        DecideBatchCodec.REQUEST_MESSAGE_TYPE,
        (message, connection) -> new DecideBatchMessageTask(message, node, connection));
  }

  @Override
  public Int2ObjectHashMap<MessageTaskFactory> getFactories() {
    return factories;
  }
}
