package io.tributary.broker.group;

import java.util.Optional;

import io.tributary.broker.share.ShareConfig;
import org.apache.kafka.common.Uuid;

/**
 * What the share-group side of the coordinator needs from outside the group package: the broker's share settings,
 * the topics members subscribe to (from the metadata cache), and each group's session timeout and heartbeat interval
 * (its group configuration over the broker's defaults).
 *
 * @param config   the broker's {@code group.share.*} settings ({@code group.share.max.size} is read here)
 * @param topics   the topics that exist now; called under a group's monitor, so it must not block
 * @param timeouts per group; called on every ShareGroupHeartbeat, so it must be fast
 */
public record ShareGroupContext(ShareConfig config, Topics topics, Timeouts timeouts) {

    /** A topic as the assignor sees it. */
    public record TopicShape(Uuid topicId, int partitionCount) {
    }

    /** The shape of a topic by name, empty if the metadata does not know it. */
    @FunctionalInterface
    public interface Topics {
        Optional<TopicShape> topic(String name);
    }

    /** A share group's {@code share.session.timeout.ms} and {@code share.heartbeat.interval.ms}. */
    public interface Timeouts {
        int sessionTimeoutMs(String groupId);

        int heartbeatIntervalMs(String groupId);
    }

    /** Without topics or group configurations: the broker's defaults for every group (units, and no share groups). */
    public static ShareGroupContext defaults(ShareConfig config) {
        return new ShareGroupContext(config, name -> Optional.empty(), new Timeouts() {
            @Override
            public int sessionTimeoutMs(String groupId) {
                return config.sessionTimeoutMs();
            }

            @Override
            public int heartbeatIntervalMs(String groupId) {
                return config.heartbeatIntervalMs();
            }
        });
    }
}
