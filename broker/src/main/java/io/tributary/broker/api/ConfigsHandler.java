package io.tributary.broker.api;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.BrokerConfig;
import io.tributary.broker.cluster.BrokerConfigAdmin;
import io.tributary.broker.cluster.GroupConfigDef;
import io.tributary.broker.cluster.GroupConfigs;
import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.TopicMetadata;
import io.tributary.broker.storage.LogConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;

/**
 * DescribeConfigs and IncrementalAlterConfigs. A topic's effective settings are the broker defaults (from the
 * {@code log.*} properties) with the topic's overrides on top; changes are validated, stored in ZooKeeper under
 * {@code /config/topics/<topic>}, and take effect at runtime on every replica through the metadata cache. The
 * broker resource shows server.properties with the dynamic broker configuration ({@code /config/brokers}) on top;
 * the defaults of every topic setting ({@link BrokerConfig#DYNAMIC_PROPERTIES}) can be changed at runtime, for one
 * broker (resource name = its id) or the whole cluster (resource name ""), and reach every log without a restart. A
 * group's configuration (KIP-848, KIP-932: {@code share.*}, {@code consumer.*}; {@link GroupConfigDef}) is stored
 * under {@code /config/groups/<groupId>} and read by every broker from {@link GroupConfigs}; the group need not exist.
 */
final class ConfigsHandler {

    private static final String DEFAULT_ENTITY = BrokerConfigAdmin.DEFAULT_ENTITY;
    private static final byte SET = 0;
    private static final byte DELETE = 1;
    private static final byte APPEND = 2;
    private static final byte SUBTRACT = 3;

    /**
     * Kafka's replication throttles, broker and topic level. Tributary does not throttle replication; these can never
     * be set, so deleting one (as {@code kafka-reassign-partitions.sh --verify} does to clear its throttles) changes
     * nothing and succeeds, and setting one is refused with a message that says so.
     */
    private static final Set<String> REPLICATION_THROTTLES = Set.of("leader.replication.throttled.rate",
            "follower.replication.throttled.rate", "replica.alter.log.dirs.io.max.bytes.per.second",
            "leader.replication.throttled.replicas", "follower.replication.throttled.replicas");

    /** How long IncrementalAlterConfigs waits for this broker's metadata to show its changes. */
    private static final long APPLY_WAIT_MS = 5_000;

    private final BrokerConfig config;
    private final ClusterView cluster;

    ConfigsHandler(BrokerConfig config, ClusterView cluster) {
        this.config = config;
        this.cluster = cluster;
    }

    AbstractResponse describe(DescribeConfigsRequest request) {
        DescribeConfigsRequestData data = request.data();
        short version = request.version();
        DescribeConfigsResponseData response = new DescribeConfigsResponseData();
        for (DescribeConfigsRequestData.DescribeConfigsResource resource : data.resources()) {
            DescribeConfigsResponseData.DescribeConfigsResult result = new DescribeConfigsResponseData.DescribeConfigsResult()
                    .setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName());
            try {
                ConfigResource.Type type = ConfigResource.Type.forId(resource.resourceType());
                List<DescribeConfigsResponseData.DescribeConfigsResourceResult> entries = switch (type) {
                    case TOPIC -> describeTopic(resource, version, data.includeDocumentation());
                    case BROKER -> describeBroker(resource, version, data.includeDocumentation());
                    case GROUP -> describeGroup(resource, version, data.includeDocumentation());
                    default -> throw new InvalidRequestException("Config resource type " + type
                            + " is not supported");
                };
                result.setErrorCode(Errors.NONE.code()).setConfigs(entries);
            } catch (ApiException e) {
                result.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
            }
            response.results().add(result);
        }
        return new DescribeConfigsResponse(response);
    }

    private List<DescribeConfigsResponseData.DescribeConfigsResourceResult> describeTopic(
            DescribeConfigsRequestData.DescribeConfigsResource resource, short version, boolean documentation) {
        TopicMetadata topic = cluster.snapshot().topic(resource.resourceName())
                .orElseThrow(() -> new UnknownTopicOrPartitionException("Topic " + resource.resourceName()
                        + " does not exist"));
        Map<String, String> overrides = topic.configOverrides();
        LogConfig effective = brokerConfig().defaultLogConfig().withOverrides(overrides);
        List<DescribeConfigsResponseData.DescribeConfigsResourceResult> entries = new ArrayList<>();
        for (String name : requested(resource.configurationKeys(), LogConfig.names())) {
            DescribeConfigsResponse.ConfigSource source = overrides.containsKey(name)
                    ? DescribeConfigsResponse.ConfigSource.TOPIC_CONFIG
                    : DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG;
            entries.add(entry(name, effective.stringValue(name), source, false, LogConfig.type(name),
                    documentation ? LogConfig.documentation(name) : null, version));
        }
        return entries;
    }

    /**
     * A group's configuration: every key, with the group's value (source {@code GROUP_CONFIG}, which the Admin client
     * shows as {@code DYNAMIC_GROUP_CONFIG}) or the broker's default ({@code DEFAULT_CONFIG}). Any group id may be
     * described, existing or not, as in Kafka.
     */
    private List<DescribeConfigsResponseData.DescribeConfigsResourceResult> describeGroup(
            DescribeConfigsRequestData.DescribeConfigsResource resource, short version, boolean documentation) {
        if (resource.resourceName().isEmpty()) {
            throw new InvalidRequestException("A group config resource needs a group id");
        }
        GroupConfigs groupConfigs = cluster.groupConfigs();
        GroupConfigDef definition = groupConfigs.definition();
        Map<String, String> stored = groupConfigs.stored(resource.resourceName());
        List<DescribeConfigsResponseData.DescribeConfigsResourceResult> entries = new ArrayList<>();
        for (String name : requested(resource.configurationKeys(), definition.names())) {
            boolean set = stored.containsKey(name);
            entries.add(entry(name, set ? stored.get(name) : definition.defaultValue(name),
                    set ? DescribeConfigsResponse.ConfigSource.GROUP_CONFIG
                            : DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG,
                    false, definition.type(name), documentation ? definition.documentation(name) : null, version));
        }
        return entries;
    }

    /** The static configuration with the dynamic broker configuration in effect now. */
    private BrokerConfig brokerConfig() {
        try {
            return config.withDynamic(cluster.snapshot().dynamicBrokerConfig(config.brokerId));
        } catch (org.apache.kafka.common.config.ConfigException e) {
            return config;
        }
    }

    private List<DescribeConfigsResponseData.DescribeConfigsResourceResult> describeBroker(
            DescribeConfigsRequestData.DescribeConfigsResource resource, short version, boolean documentation) {
        checkThisBroker(resource.resourceName());
        MetadataSnapshot snapshot = cluster.snapshot();
        Map<String, String> perBroker = snapshot.brokerConfigEntity(String.valueOf(config.brokerId));
        Map<String, String> clusterDefault = snapshot.brokerConfigEntity(DEFAULT_ENTITY);
        BrokerConfig effective = brokerConfig();
        List<DescribeConfigsResponseData.DescribeConfigsResourceResult> entries = new ArrayList<>();
        for (String name : requested(resource.configurationKeys(), BrokerConfig.names())) {
            DescribeConfigsResponse.ConfigSource source;
            if (perBroker.containsKey(name)) {
                source = DescribeConfigsResponse.ConfigSource.DYNAMIC_BROKER_CONFIG;
            } else if (clusterDefault.containsKey(name)) {
                source = DescribeConfigsResponse.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG;
            } else if (config.isExplicit(name)) {
                source = DescribeConfigsResponse.ConfigSource.STATIC_BROKER_CONFIG;
            } else {
                source = DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG;
            }
            entries.add(entry(name, effective.stringValue(name), source,
                    !BrokerConfig.DYNAMIC_PROPERTIES.contains(name), BrokerConfig.type(name),
                    documentation ? BrokerConfig.documentation(name) : null, version));
        }
        return entries;
    }

    private void checkThisBroker(String resourceName) {
        if (!resourceName.isEmpty() && !resourceName.equals(String.valueOf(config.brokerId))) {
            throw new InvalidRequestException("This is broker " + config.brokerId + "; ask broker " + resourceName
                    + " for its own configuration");
        }
    }

    private static Set<String> requested(List<String> keys, Set<String> known) {
        Set<String> names = new TreeSet<>(known);
        if (keys == null) {
            return names;
        }
        Set<String> selected = new LinkedHashSet<>();
        for (String key : keys) {
            if (names.contains(key)) {
                selected.add(key);
            }
        }
        return selected;
    }

    private static DescribeConfigsResponseData.DescribeConfigsResourceResult entry(String name, String value,
            DescribeConfigsResponse.ConfigSource source, boolean readOnly, ConfigDef.Type type, String doc,
            short version) {
        DescribeConfigsResponseData.DescribeConfigsResourceResult entry =
                new DescribeConfigsResponseData.DescribeConfigsResourceResult()
                        .setName(name)
                        .setValue(value)
                        .setReadOnly(readOnly)
                        .setConfigSource(source.id())
                        .setIsSensitive(false);
        if (version >= 3) {
            entry.setConfigType(configType(type).id()).setDocumentation(doc);
        }
        return entry;
    }

    private static DescribeConfigsResponse.ConfigType configType(ConfigDef.Type type) {
        return switch (type) {
            case BOOLEAN -> DescribeConfigsResponse.ConfigType.BOOLEAN;
            case STRING -> DescribeConfigsResponse.ConfigType.STRING;
            case INT -> DescribeConfigsResponse.ConfigType.INT;
            case SHORT -> DescribeConfigsResponse.ConfigType.SHORT;
            case LONG -> DescribeConfigsResponse.ConfigType.LONG;
            case DOUBLE -> DescribeConfigsResponse.ConfigType.DOUBLE;
            case LIST -> DescribeConfigsResponse.ConfigType.LIST;
            case CLASS -> DescribeConfigsResponse.ConfigType.CLASS;
            case PASSWORD -> DescribeConfigsResponse.ConfigType.PASSWORD;
        };
    }

    /**
     * Answers once this broker's metadata shows every change written (at most {@link #APPLY_WAIT_MS}), so that a
     * DescribeConfigs right after it reads the new values, as with Kafka. Without the wait, the Admin client's
     * describeConfigs after incrementalAlterConfigs returned the old value now and then (the change reaches the
     * metadata cache through a ZooKeeper watch, a few milliseconds after the write).
     */
    CompletableFuture<AbstractResponse> incrementalAlter(IncrementalAlterConfigsRequest request) {
        IncrementalAlterConfigsRequestData data = request.data();
        IncrementalAlterConfigsResponseData response = new IncrementalAlterConfigsResponseData();
        List<CompletableFuture<Void>> applied = new ArrayList<>();
        for (IncrementalAlterConfigsRequestData.AlterConfigsResource resource : data.resources()) {
            IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse result =
                    new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                            .setResourceType(resource.resourceType())
                            .setResourceName(resource.resourceName());
            try {
                ConfigResource.Type type = ConfigResource.Type.forId(resource.resourceType());
                if (type == ConfigResource.Type.TOPIC) {
                    Map<String, String> written = alterTopic(resource, data.validateOnly());
                    if (!data.validateOnly()) {
                        applied.add(cluster.topicAdmin().whenConfigApplied(resource.resourceName(), written));
                    }
                } else if (type == ConfigResource.Type.BROKER) {
                    alterBroker(resource, data.validateOnly());
                } else if (type == ConfigResource.Type.GROUP) {
                    Map<String, String> written = alterGroup(resource, data.validateOnly());
                    if (!data.validateOnly()) {
                        applied.add(cluster.groupConfigs().whenApplied(resource.resourceName(), written));
                    }
                } else {
                    throw new InvalidRequestException("Config resource type " + type + " is not supported");
                }
                result.setErrorCode(Errors.NONE.code());
            } catch (ApiException e) {
                result.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
            }
            response.responses().add(result);
        }
        // The changes are stored whether or not this broker's metadata shows them in time: success either way.
        return CompletableFuture.allOf(applied.toArray(new CompletableFuture[0]))
                .orTimeout(APPLY_WAIT_MS, TimeUnit.MILLISECONDS)
                .handle((ignored, failure) -> new IncrementalAlterConfigsResponse(response));
    }

    /**
     * Changes dynamic broker configuration: resource name "" for the cluster-wide default, or a broker id. Only
     * {@link BrokerConfig#DYNAMIC_PROPERTIES} may change; the result is validated against this broker's static
     * properties before it is written.
     */
    private void alterBroker(IncrementalAlterConfigsRequestData.AlterConfigsResource requested,
                             boolean validateOnly) {
        IncrementalAlterConfigsRequestData.AlterConfigsResource resource = withoutThrottleDeletions(requested);
        String name = resource.resourceName();
        String entity;
        if (name.isEmpty()) {
            entity = DEFAULT_ENTITY;
        } else {
            try {
                entity = String.valueOf(Integer.parseInt(name));
            } catch (NumberFormatException e) {
                throw new InvalidRequestException("Broker resource name must be a broker id or empty, not '" + name
                        + "'");
            }
        }
        checkUniqueNames(requested);
        for (IncrementalAlterConfigsRequestData.AlterableConfig change : resource.configs()) {
            if (!BrokerConfig.DYNAMIC_PROPERTIES.contains(change.name())) {
                throw new InvalidConfigurationException("Broker config " + change.name() + " cannot be changed at "
                        + "runtime; set it in server.properties. Dynamic: "
                        + new TreeSet<>(BrokerConfig.DYNAMIC_PROPERTIES));
            }
        }
        cluster.brokerConfigs().alter(entity, current -> {
            Map<String, String> next = new HashMap<>(current);
            BrokerConfig effective = config.withDynamic(current);
            for (IncrementalAlterConfigsRequestData.AlterableConfig change : resource.configs()) {
                apply(next, change, BrokerConfig.type(change.name()), effective::stringValue);
            }
            return next;
        }, next -> {
            try {
                config.withDynamic(next);
                return next;
            } catch (org.apache.kafka.common.config.ConfigException e) {
                throw new InvalidConfigurationException(e.getMessage());
            }
        }, validateOnly);
    }

    /** The changes other than deletions of replication throttles (never set here); refuses setting one. */
    private static IncrementalAlterConfigsRequestData.AlterConfigsResource withoutThrottleDeletions(
            IncrementalAlterConfigsRequestData.AlterConfigsResource resource) {
        IncrementalAlterConfigsRequestData.AlterConfigsResource kept = resource.duplicate();
        kept.configs().clear();
        for (IncrementalAlterConfigsRequestData.AlterableConfig change : resource.configs()) {
            if (!REPLICATION_THROTTLES.contains(change.name())) {
                kept.configs().add(change.duplicate());
            } else if (change.configOperation() != DELETE) {
                throw new InvalidConfigurationException("Replication throttling (" + change.name() + ") is not "
                        + "supported: Tributary replicates and reassigns unthrottled");
            }
        }
        return kept;
    }

    private static void checkUniqueNames(IncrementalAlterConfigsRequestData.AlterConfigsResource resource) {
        Set<String> names = new java.util.HashSet<>();
        for (IncrementalAlterConfigsRequestData.AlterableConfig change : resource.configs()) {
            if (!names.add(change.name())) {
                throw new InvalidRequestException("Config " + change.name() + " is changed twice in one request");
            }
        }
    }

    /**
     * Changes a group's configuration ({@code /config/groups/<groupId>}); the group need not exist. Unknown keys and
     * values out of bounds are INVALID_CONFIG naming the key ({@link GroupConfigDef}). Returns it as written.
     */
    private Map<String, String> alterGroup(IncrementalAlterConfigsRequestData.AlterConfigsResource resource,
                                           boolean validateOnly) {
        checkUniqueNames(resource);
        GroupConfigs groupConfigs = cluster.groupConfigs();
        GroupConfigDef definition = groupConfigs.definition();
        for (IncrementalAlterConfigsRequestData.AlterableConfig change : resource.configs()) {
            if (!definition.isKnown(change.name())) {
                throw new InvalidConfigurationException("Unknown group config name: " + change.name());
            }
        }
        return groupConfigs.alter(resource.resourceName(), current -> {
            Map<String, String> next = new HashMap<>(current);
            for (IncrementalAlterConfigsRequestData.AlterableConfig change : resource.configs()) {
                apply(next, change, definition.type(change.name()),
                        name -> current.getOrDefault(name, definition.defaultValue(name)));
            }
            return next;
        }, validateOnly);
    }

    /** Returns the topic's overrides as written. */
    private Map<String, String> alterTopic(IncrementalAlterConfigsRequestData.AlterConfigsResource requested,
                                           boolean validateOnly) {
        String topic = requested.resourceName();
        checkUniqueNames(requested);
        IncrementalAlterConfigsRequestData.AlterConfigsResource resource = withoutThrottleDeletions(requested);
        for (IncrementalAlterConfigsRequestData.AlterableConfig change : resource.configs()) {
            if (!LogConfig.names().contains(change.name())) {
                throw new InvalidConfigurationException("Unknown topic config name: " + change.name());
            }
        }
        return cluster.topicAdmin().alterTopicConfig(topic, current -> {
            Map<String, String> next = new HashMap<>(current);
            LogConfig effective = brokerConfig().defaultLogConfig().withOverrides(current);
            for (IncrementalAlterConfigsRequestData.AlterableConfig change : resource.configs()) {
                apply(next, change, LogConfig.type(change.name()), effective::stringValue);
            }
            return next;
        }, validateOnly);
    }

    private static void apply(Map<String, String> overrides, IncrementalAlterConfigsRequestData.AlterableConfig change,
                              ConfigDef.Type type, java.util.function.Function<String, String> effectiveValue) {
        String name = change.name();
        switch (change.configOperation()) {
            case SET -> overrides.put(name, change.value());
            case DELETE -> overrides.remove(name);
            case APPEND, SUBTRACT -> {
                if (type != ConfigDef.Type.LIST) {
                    throw new InvalidConfigurationException("Config " + name + " is not a list; APPEND and "
                            + "SUBTRACT apply to lists only");
                }
                Set<String> items = new LinkedHashSet<>(Arrays.asList(effectiveValue.apply(name).split(",")));
                List<String> given = change.value() == null ? List.of() : Arrays.asList(change.value().split(","));
                if (change.configOperation() == APPEND) {
                    items.addAll(given);
                } else {
                    given.forEach(items::remove);
                }
                overrides.put(name, String.join(",", items));
            }
            default -> throw new InvalidRequestException("Unknown config operation " + change.configOperation()
                    + " for " + name);
        }
    }
}
