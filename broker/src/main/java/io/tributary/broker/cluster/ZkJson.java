package io.tributary.broker.cluster;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tributary.broker.BrokerConfig.Endpoint;
import org.apache.kafka.common.Uuid;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * The JSON of every znode Tributary reads or writes, in Kafka's formats so that the layout is familiar to anyone who
 * has looked into a Kafka cluster's ZooKeeper (and readable by Kafka's tools):
 * <pre>
 * /brokers/ids/&lt;id&gt;          {"version":5,"host":"h","port":9092,"endpoints":["PLAINTEXT://h:9092"],
 *                             "listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"rack":null,
 *                             "jmx_port":-1,"timestamp":"1700000000000","features":{}}
 * /controller                {"version":1,"brokerid":1,"timestamp":"1700000000000"}
 * /controller_epoch          1
 * /brokers/topics/&lt;topic&gt;    {"version":3,"topic_id":"&lt;base64 Uuid&gt;","partitions":{"0":[1,2]},
 *                             "adding_replicas":{},"removing_replicas":{}}
 * .../partitions/&lt;p&gt;/state    {"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2]}
 * /brokers/offline_replicas/&lt;id&gt;  {"version":1,"broker_epoch":Z,"log_dirs":["/data/a"],"partitions":{"t":[0,2]}}
 *                             (Tributary's)
 * /config/topics/&lt;topic&gt;     {"version":1,"config":{"retention.ms":"3600000"}}
 * /config/groups/&lt;group&gt;     {"version":1,"config":{"share.auto.offset.reset":"earliest"}}  (same layout)
 * /latest_producer_id_block  {"version":1,"broker":1,"block_start":"0","block_end":"999"}
 * </pre>
 * Timestamps and producer-id bounds are JSON strings, as Kafka writes them. Readers accept what Kafka's readers
 * accept: missing optional fields, numbers given as strings.
 *
 * <p>Stateless and thread-safe. A value that cannot be read throws {@link ClusterException} naming the znode.
 */
final class ZkJson {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ZkJson() {
    }

    // /brokers/ids/<id>

    static byte[] brokerRegistration(BrokerInfo broker, long timestampMs) {
        return brokerRegistration(broker, Endpoint::listenerName, -1, timestampMs);
    }

    /**
     * @param protocolOf the security protocol of each endpoint's listener, for listener_security_protocol_map
     * @param jmxPort    the port of the broker's remote JMX, -1 without
     */
    static byte[] brokerRegistration(BrokerInfo broker, java.util.function.Function<Endpoint, String> protocolOf,
                                     int jmxPort, long timestampMs) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("version", 5);
        json.put("host", broker.host());
        json.put("port", broker.port());
        ArrayNode endpoints = json.putArray("endpoints");
        ObjectNode protocols = MAPPER.createObjectNode();
        for (Endpoint e : broker.endpoints()) {
            endpoints.add(endpointUri(e));
            protocols.put(e.listenerName(), protocolOf.apply(e));
        }
        json.set("listener_security_protocol_map", protocols);
        json.put("rack", broker.rack());
        json.put("jmx_port", jmxPort);
        json.put("timestamp", Long.toString(timestampMs));
        json.putObject("features");
        return write(json);
    }

    static BrokerInfo parseBrokerRegistration(String path, byte[] data) {
        JsonNode json = read(path, data);
        int id = Integer.parseInt(ZkPaths.name(path));
        List<Endpoint> endpoints = new ArrayList<>();
        for (JsonNode uri : json.path("endpoints")) {
            endpoints.add(parseEndpoint(path, uri.asText()));
        }
        String host = text(json, "host");
        int port = json.path("port").asInt(-1);
        if (endpoints.isEmpty() && host != null && port >= 0) {
            endpoints.add(new Endpoint("PLAINTEXT", host, port));
        }
        if (endpoints.isEmpty()) {
            throw new ClusterException("broker registration at " + path + " has no endpoints: " + utf8(data));
        }
        Endpoint first = endpoints.get(0);
        return new BrokerInfo(id, host != null ? host : first.host(), port >= 0 ? port : first.port(),
                text(json, "rack"), endpoints, BrokerInfo.NO_EPOCH);
    }

    private static String endpointUri(Endpoint e) {
        String host = e.host().contains(":") ? "[" + e.host() + "]" : e.host();
        return e.listenerName() + "://" + host + ":" + e.port();
    }

    private static Endpoint parseEndpoint(String path, String uri) {
        int scheme = uri.indexOf("://");
        int colon = uri.lastIndexOf(':');
        if (scheme <= 0 || colon <= scheme + 2) {
            throw new ClusterException("bad endpoint '" + uri + "' in " + path);
        }
        String host = uri.substring(scheme + 3, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            return new Endpoint(uri.substring(0, scheme), host, Integer.parseInt(uri.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new ClusterException("bad port in endpoint '" + uri + "' in " + path, e);
        }
    }

    // /controller and /controller_epoch

    static byte[] controller(int brokerId, long timestampMs) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("version", 1);
        json.put("brokerid", brokerId);
        json.put("timestamp", Long.toString(timestampMs));
        return write(json);
    }

    static int parseControllerId(String path, byte[] data) {
        JsonNode id = read(path, data).path("brokerid");
        if (!id.canConvertToInt() && !id.isTextual()) {
            throw new ClusterException("no brokerid in " + path + ": " + utf8(data));
        }
        return id.asInt();
    }

    static byte[] controllerEpoch(int epoch) {
        return Integer.toString(epoch).getBytes(UTF_8);
    }

    static int parseControllerEpoch(String path, byte[] data) {
        try {
            return Integer.parseInt(utf8(data).trim());
        } catch (NumberFormatException e) {
            throw new ClusterException("bad controller epoch in " + path + ": " + utf8(data), e);
        }
    }

    // /brokers/shutting_down/<id>

    static byte[] shutdownMarker(long brokerEpoch) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("version", 1);
        json.put("broker_epoch", brokerEpoch);
        return write(json);
    }

    static Long parseShutdownMarker(String path, byte[] data) {
        JsonNode epoch = read(path, data).get("broker_epoch");
        if (epoch == null || !epoch.canConvertToLong()) {
            throw new ClusterException("no broker_epoch in " + path + ": " + utf8(data));
        }
        return epoch.asLong();
    }

    // /brokers/offline_replicas/<id>

    /** The parsed marker: the epoch of the broker run that wrote it, and what it reports. */
    record OfflineReplicaMarker(long brokerEpoch, OfflineReplicas replicas) {
    }

    static byte[] offlineReplicas(long brokerEpoch, OfflineReplicas replicas) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("version", 1);
        json.put("broker_epoch", brokerEpoch);
        ArrayNode dirs = json.putArray("log_dirs");
        replicas.logDirs().forEach(dirs::add);
        Map<String, List<Integer>> byTopic = new TreeMap<>();
        for (org.apache.kafka.common.TopicPartition tp : replicas.partitions()) {
            byTopic.computeIfAbsent(tp.topic(), topic -> new ArrayList<>()).add(tp.partition());
        }
        ObjectNode partitions = json.putObject("partitions");
        byTopic.forEach((topic, numbers) -> {
            ArrayNode array = partitions.putArray(topic);
            numbers.stream().sorted().forEach(array::add);
        });
        return write(json);
    }

    static OfflineReplicaMarker parseOfflineReplicas(String path, byte[] data) {
        JsonNode json = read(path, data);
        JsonNode epoch = json.get("broker_epoch");
        if (epoch == null || !epoch.canConvertToLong()) {
            throw new ClusterException("no broker_epoch in " + path + ": " + utf8(data));
        }
        List<String> dirs = new ArrayList<>();
        JsonNode dirsJson = json.get("log_dirs");
        if (dirsJson != null && dirsJson.isArray()) {
            dirsJson.forEach(dir -> dirs.add(dir.asText()));
        }
        java.util.Set<org.apache.kafka.common.TopicPartition> partitions = new java.util.HashSet<>();
        JsonNode partitionsJson = json.get("partitions");
        if (partitionsJson != null && partitionsJson.isObject()) {
            partitionsJson.fields().forEachRemaining(topic -> {
                if (!topic.getValue().isArray()) {
                    throw new ClusterException("partitions of " + topic.getKey() + " in " + path
                            + " are not a list: " + utf8(data));
                }
                for (int partition : intList(topic.getValue())) {
                    partitions.add(new org.apache.kafka.common.TopicPartition(topic.getKey(), partition));
                }
            });
        }
        return new OfflineReplicaMarker(epoch.asLong(), new OfflineReplicas(dirs, partitions));
    }

    // /brokers/topics/<topic>

    static byte[] topicAssignment(TopicAssignment assignment) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("version", 3);
        json.put("topic_id", assignment.topicId().toString());
        ObjectNode partitions = json.putObject("partitions");
        for (Map.Entry<Integer, List<Integer>> e : assignment.partitions().entrySet()) {
            ArrayNode replicas = partitions.putArray(Integer.toString(e.getKey()));
            e.getValue().forEach(replicas::add);
        }
        putPartitionLists(json.putObject("adding_replicas"), assignment.adding());
        putPartitionLists(json.putObject("removing_replicas"), assignment.removing());
        return write(json);
    }

    static TopicAssignment parseTopicAssignment(String path, byte[] data) {
        JsonNode json = read(path, data);
        String id = text(json, "topic_id");
        Uuid topicId;
        try {
            topicId = id == null ? Uuid.ZERO_UUID : Uuid.fromString(id);
        } catch (IllegalArgumentException e) {
            throw new ClusterException("bad topic_id '" + id + "' in " + path, e);
        }
        return new TopicAssignment(topicId, partitionLists(path, json.path("partitions")),
                partitionLists(path, json.path("adding_replicas")), partitionLists(path, json.path("removing_replicas")));
    }

    private static void putPartitionLists(ObjectNode json, Map<Integer, List<Integer>> lists) {
        for (Map.Entry<Integer, List<Integer>> e : lists.entrySet()) {
            ArrayNode replicas = json.putArray(Integer.toString(e.getKey()));
            e.getValue().forEach(replicas::add);
        }
    }

    private static SortedMap<Integer, List<Integer>> partitionLists(String path, JsonNode json) {
        SortedMap<Integer, List<Integer>> lists = new TreeMap<>();
        for (Map.Entry<String, JsonNode> field : json.properties()) {
            try {
                lists.put(Integer.parseInt(field.getKey()), intList(field.getValue()));
            } catch (NumberFormatException e) {
                throw new ClusterException("bad partition '" + field.getKey() + "' in " + path, e);
            }
        }
        return lists;
    }

    // /brokers/topics/<topic>/partitions/<p>/state

    static byte[] partitionState(LeaderAndIsr state) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("controller_epoch", state.controllerEpoch());
        json.put("leader", state.leader());
        json.put("version", 1);
        json.put("leader_epoch", state.leaderEpoch());
        ArrayNode isr = json.putArray("isr");
        state.isr().forEach(isr::add);
        if (!state.isrEpochs().isEmpty()) {
            ObjectNode epochs = json.putObject("isr_broker_epochs");
            state.isrEpochs().forEach((broker, epoch) -> epochs.put(Integer.toString(broker), epoch));
        }
        return write(json);
    }

    static LeaderAndIsr parsePartitionState(String path, byte[] data) {
        JsonNode json = read(path, data);
        if (!json.has("leader") || !json.has("leader_epoch") || !json.has("isr")) {
            throw new ClusterException("incomplete partition state in " + path + ": " + utf8(data));
        }
        Map<Integer, Long> epochs = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : json.path("isr_broker_epochs").properties()) {
            try {
                epochs.put(Integer.parseInt(field.getKey()), field.getValue().asLong());
            } catch (NumberFormatException e) {
                throw new ClusterException("bad broker id '" + field.getKey() + "' in isr_broker_epochs of " + path, e);
            }
        }
        return new LeaderAndIsr(json.get("leader").asInt(), json.get("leader_epoch").asInt(), intList(json.get("isr")),
                json.path("controller_epoch").asInt(0), epochs);
    }

    // /config/topics/<topic>

    static byte[] topicConfig(Map<String, String> overrides) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("version", 1);
        ObjectNode config = json.putObject("config");
        new TreeMap<>(overrides).forEach(config::put);
        return write(json);
    }

    static Map<String, String> parseTopicConfig(String path, byte[] data) {
        Map<String, String> overrides = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : read(path, data).path("config").properties()) {
            overrides.put(field.getKey(), field.getValue().isNull() ? null : field.getValue().asText());
        }
        return overrides;
    }

    // /latest_producer_id_block

    static byte[] producerIdBlock(ProducerIdBlock block) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("version", 1);
        json.put("broker", block.brokerId());
        json.put("block_start", Long.toString(block.firstId()));
        json.put("block_end", Long.toString(block.lastId()));
        return write(json);
    }

    static ProducerIdBlock parseProducerIdBlock(String path, byte[] data) {
        JsonNode json = read(path, data);
        try {
            return new ProducerIdBlock(json.path("broker").asInt(-1),
                    Long.parseLong(json.path("block_start").asText()), Long.parseLong(json.path("block_end").asText()));
        } catch (IllegalArgumentException e) {
            throw new ClusterException("bad producer id block in " + path + ": " + utf8(data), e);
        }
    }

    // helpers

    /** {@code /cluster/id}: {@code {"version":"1","id":"<base64 Uuid>"}}, as Kafka writes it. */
    static byte[] clusterId(String id) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("version", "1");
        json.put("id", id);
        return write(json);
    }

    static String parseClusterId(String path, byte[] data) {
        return text(read(path, data), "id");
    }

    private static List<Integer> intList(JsonNode array) {
        List<Integer> values = new ArrayList<>();
        for (JsonNode value : array) {
            values.add(value.asInt());
        }
        return values;
    }

    private static String text(JsonNode json, String field) {
        JsonNode value = json.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    private static JsonNode read(String path, byte[] data) {
        if (data == null || data.length == 0) {
            throw new ClusterException("no data in " + path);
        }
        try {
            JsonNode json = MAPPER.readTree(data);
            if (json == null || !json.isObject()) {
                throw new ClusterException("expected a JSON object in " + path + ": " + utf8(data));
            }
            return json;
        } catch (IOException e) {
            throw new ClusterException("malformed JSON in " + path + ": " + utf8(data), e);
        }
    }

    private static byte[] write(ObjectNode json) {
        try {
            return MAPPER.writeValueAsBytes(json);
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialize " + json, e);
        }
    }

    private static String utf8(byte[] data) {
        return data == null ? "null" : new String(data, UTF_8);
    }
}
