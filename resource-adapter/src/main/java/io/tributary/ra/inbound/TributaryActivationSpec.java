package io.tributary.ra.inbound;

import java.io.Serializable;

import io.tributary.ra.TributaryAdapterSettings;
import jakarta.jms.MessageListener;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.Activation;
import jakarta.resource.spi.ActivationSpec;
import jakarta.resource.spi.ConfigProperty;
import jakarta.resource.spi.IllegalStateException;
import jakarta.resource.spi.InvalidPropertyException;
import jakarta.resource.spi.ResourceAdapter;

/**
 * How a message-driven bean consumes from Tributary: the activation configuration properties of an MDB
 * ({@code @ActivationConfigProperty}) land here. The standard Jakarta Messaging activation properties keep the names
 * application servers and other JMS resource adapters use; Tributary adds the cluster, replay, redelivery and
 * dead-letter settings and Kafka pass-through properties. {@link ActivationConfig} says what each means and checks
 * them; {@link #validate()} reports the first wrong property by name.
 *
 * <p>A JavaBean: the container sets the properties (as {@code String}, {@code Integer} and {@code Boolean}, the types
 * config properties may have) from one thread, then calls {@link #setResourceAdapter} and {@link #validate()} before
 * handing it to {@code endpointActivation}. Unset properties are null and take their defaults there.
 */
@Activation(messageListeners = MessageListener.class)
public class TributaryActivationSpec implements ActivationSpec, Serializable {

    private static final long serialVersionUID = 1L;

    private transient ResourceAdapter resourceAdapter;

    private String destination;
    private String destinationLookup;
    private String destinationType;
    private String messageSelector;
    private String acknowledgeMode;
    private String subscriptionDurability;
    private String subscriptionName;
    private Boolean shareSubscriptions;
    private String clientId;
    private String connectionFactoryLookup;
    private Integer maxSession;
    private String queueMode;
    private String user;
    private String password;
    private String bootstrapServers;
    private String startAt;
    private Integer maxRedeliveries;
    private Long redeliveryDelay;
    private String deadLetterDestination;
    private String kafkaProperties;
    private Boolean plainRecordsAsText;
    private String trustedObjectPackages;
    private Long objectMessageMaxDepth;
    private Long objectMessageMaxReferences;
    private Long objectMessageMaxArrayLength;
    private Long objectMessageMaxBytes;

    /**
     * Checks every property that can be checked without JNDI (destinationLookup and connectionFactoryLookup are
     * resolved at activation).
     *
     * @throws InvalidPropertyException whose message starts with the name of the wrong property
     */
    @Override
    public void validate() throws InvalidPropertyException {
        ActivationSpecResolver.resolve(this, resourceAdapter instanceof TributaryAdapterSettings ra ? ra : null, null);
    }

    @Override
    public ResourceAdapter getResourceAdapter() {
        return resourceAdapter;
    }

    /** Called once by the container (Connectors 2.1 §5.3.3): the association does not change afterwards. */
    @Override
    public void setResourceAdapter(ResourceAdapter resourceAdapter) throws ResourceException {
        if (this.resourceAdapter != null && this.resourceAdapter != resourceAdapter) {
            throw new IllegalStateException("This activation spec is already associated with "
                    + this.resourceAdapter);
        }
        this.resourceAdapter = resourceAdapter;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Standard Jakarta Messaging activation properties

    public String getDestination() {
        return destination;
    }

    @ConfigProperty(description = "The queue or topic name (the Kafka topic). Either this or destinationLookup.")
    public void setDestination(String destination) {
        this.destination = destination;
    }

    public String getDestinationLookup() {
        return destinationLookup;
    }

    @ConfigProperty(description = "JNDI name of a jakarta.jms.Queue or Topic, looked up at activation; its name is"
            + " the topic. Either this or destination.")
    public void setDestinationLookup(String destinationLookup) {
        this.destinationLookup = destinationLookup;
    }

    public String getDestinationType() {
        return destinationType;
    }

    @ConfigProperty(description = "jakarta.jms.Queue or jakarta.jms.Topic; unset: the kind of the looked-up"
            + " destination, else jakarta.jms.Queue.")
    public void setDestinationType(String destinationType) {
        this.destinationType = destinationType;
    }

    public String getMessageSelector() {
        return messageSelector;
    }

    @ConfigProperty(description = "A Jakarta Messaging message selector; messages it does not select are consumed"
            + " without delivery.")
    public void setMessageSelector(String messageSelector) {
        this.messageSelector = messageSelector;
    }

    public String getAcknowledgeMode() {
        return acknowledgeMode;
    }

    @ConfigProperty(defaultValue = "Auto-acknowledge", description = "Auto-acknowledge (commits as soon as"
            + " messages are delivered, waiting for the commit) or Dups-ok-acknowledge (commits without waiting).")
    public void setAcknowledgeMode(String acknowledgeMode) {
        this.acknowledgeMode = acknowledgeMode;
    }

    public String getSubscriptionDurability() {
        return subscriptionDurability;
    }

    @ConfigProperty(defaultValue = "NonDurable", description = "Topics: Durable or NonDurable.")
    public void setSubscriptionDurability(String subscriptionDurability) {
        this.subscriptionDurability = subscriptionDurability;
    }

    public String getSubscriptionName() {
        return subscriptionName;
    }

    @ConfigProperty(description = "Topics: the subscription name; required for a durable or shared subscription.")
    public void setSubscriptionName(String subscriptionName) {
        this.subscriptionName = subscriptionName;
    }

    public Boolean getShareSubscriptions() {
        return shareSubscriptions;
    }

    @ConfigProperty(defaultValue = "false", description = "Topics: whether the subscription is shared (by every"
            + " instance of the MDB, across servers), so each message goes to one of them.")
    public void setShareSubscriptions(Boolean shareSubscriptions) {
        this.shareSubscriptions = shareSubscriptions;
    }

    public String getClientId() {
        return clientId;
    }

    @ConfigProperty(description = "The client id; required for an unshared durable subscription, part of a shared"
            + " subscription's identity when set.")
    public void setClientId(String clientId) {
        this.clientId = clientId;
    }

    public String getConnectionFactoryLookup() {
        return connectionFactoryLookup;
    }

    @ConfigProperty(description = "JNDI name of an io.tributary.jms.TributaryConnectionFactory whose bootstrap"
            + " servers, client id and Kafka properties this activation uses where it sets none itself.")
    public void setConnectionFactoryLookup(String connectionFactoryLookup) {
        this.connectionFactoryLookup = connectionFactoryLookup;
    }

    public Integer getMaxSession() {
        return maxSession;
    }

    @ConfigProperty(defaultValue = "15", description = "At most this many deliveries at once: share-group members"
            + " (queueMode share), or partitions delivered concurrently, each in order; at least 1.")
    public void setMaxSession(Integer maxSession) {
        this.maxSession = maxSession;
    }

    public String getQueueMode() {
        return queueMode;
    }

    @ConfigProperty(description = "For a queue: share (the default, or the looked-up connection factory's), the"
            + " activation is maxSession members of the queue's Kafka share group, maxSession deliveries at once"
            + " whatever the partition count, each message acknowledged on its own, at least once; group, the queue's"
            + " consumer group, one partition per delivery thread in offset order, exactly once with XA. Topics"
            + " ignore it.")
    public void setQueueMode(String queueMode) {
        this.queueMode = queueMode;
    }

    public String getUser() {
        return user;
    }

    @ConfigProperty(description = "SASL user name (PLAIN or SCRAM); needs security.protocol SASL_PLAINTEXT or"
            + " SASL_SSL in kafkaProperties.")
    public void setUser(String user) {
        this.user = user;
    }

    public String getPassword() {
        return password;
    }

    @ConfigProperty(confidential = true, description = "SASL password, with user.")
    public void setPassword(String password) {
        this.password = password;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Tributary's properties

    public String getBootstrapServers() {
        return bootstrapServers;
    }

    @ConfigProperty(description = "host:port[,host:port...] of the cluster; unset: the connection factory's"
            + " (connectionFactoryLookup), else the resource adapter's.")
    public void setBootstrapServers(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    public String getStartAt() {
        return startAt;
    }

    @ConfigProperty(defaultValue = "committed", description = "Where delivery starts: committed, earliest, latest,"
            + " an ISO-8601 instant, or partition:offset pairs (0:120,1:98). A replay moves a queue's or durable"
            + " subscription's committed position, once per activation.")
    public void setStartAt(String startAt) {
        this.startAt = startAt;
    }

    public Integer getMaxRedeliveries() {
        return maxRedeliveries;
    }

    @ConfigProperty(defaultValue = "5", description = "How often a message whose delivery failed is delivered"
            + " again before it goes to the dead-letter destination; 0 or more.")
    public void setMaxRedeliveries(Integer maxRedeliveries) {
        this.maxRedeliveries = maxRedeliveries;
    }

    public Long getRedeliveryDelay() {
        return redeliveryDelay;
    }

    @ConfigProperty(defaultValue = "500", description = "Milliseconds between a failed delivery and the next one of"
            + " the same message (its partition waits meanwhile); 0 or more.")
    public void setRedeliveryDelay(Long redeliveryDelay) {
        this.redeliveryDelay = redeliveryDelay;
    }

    public String getDeadLetterDestination() {
        return deadLetterDestination;
    }

    @ConfigProperty(description = "The topic that receives messages whose deliveries all failed, with the reason"
            + " in their properties. Unset: such a message is logged at ERROR and skipped.")
    public void setDeadLetterDestination(String deadLetterDestination) {
        this.deadLetterDestination = deadLetterDestination;
    }

    public String getKafkaProperties() {
        return kafkaProperties;
    }

    @ConfigProperty(description = "Kafka client properties for this activation's consumer and dead-letter"
            + " producer, name=value;name=value (prefix consumer. or producer. for one); over the resource adapter's.")
    public void setKafkaProperties(String kafkaProperties) {
        this.kafkaProperties = kafkaProperties;
    }

    public Boolean getPlainRecordsAsText() {
        return plainRecordsAsText;
    }

    @ConfigProperty(defaultValue = "false", description = "Records written by plain Kafka producers arrive as"
            + " TextMessage (UTF-8) instead of BytesMessage.")
    public void setPlainRecordsAsText(Boolean plainRecordsAsText) {
        this.plainRecordsAsText = plainRecordsAsText;
    }

    public String getTrustedObjectPackages() {
        return trustedObjectPackages;
    }

    @ConfigProperty(defaultValue = "java.util,java.math,java.time", description = "Packages and classes an"
            + " ObjectMessage body may deserialize besides String and the boxed primitives; * for all.")
    public void setTrustedObjectPackages(String trustedObjectPackages) {
        this.trustedObjectPackages = trustedObjectPackages;
    }

    public Long getObjectMessageMaxDepth() {
        return objectMessageMaxDepth;
    }

    // No defaultValue on the four limits: a container applies it as if set, and the looked-up factory's would lose.
    @ConfigProperty(description = "How deep objects may nest in an ObjectMessage body; deeper bodies are refused"
            + " while being read. Unset: the connection factory's (connectionFactoryLookup), else 20.")
    public void setObjectMessageMaxDepth(Long objectMessageMaxDepth) {
        this.objectMessageMaxDepth = objectMessageMaxDepth;
    }

    public Long getObjectMessageMaxReferences() {
        return objectMessageMaxReferences;
    }

    @ConfigProperty(description = "How many objects, strings, nulls and back-references an"
            + " ObjectMessage body may hold. Unset: the connection factory's, else 1,000,000.")
    public void setObjectMessageMaxReferences(Long objectMessageMaxReferences) {
        this.objectMessageMaxReferences = objectMessageMaxReferences;
    }

    public Long getObjectMessageMaxArrayLength() {
        return objectMessageMaxArrayLength;
    }

    @ConfigProperty(description = "The longest array (or collection table) an"
            + " ObjectMessage body may make the receiver allocate. Unset: the connection factory's, else 1,048,576.")
    public void setObjectMessageMaxArrayLength(Long objectMessageMaxArrayLength) {
        this.objectMessageMaxArrayLength = objectMessageMaxArrayLength;
    }

    public Long getObjectMessageMaxBytes() {
        return objectMessageMaxBytes;
    }

    @ConfigProperty(description = "The largest serialized ObjectMessage body, in bytes."
            + " Unset: the connection factory's, else 16 MiB.")
    public void setObjectMessageMaxBytes(Long objectMessageMaxBytes) {
        this.objectMessageMaxBytes = objectMessageMaxBytes;
    }

    @Override
    public String toString() {
        return "TributaryActivationSpec[destination=" + (destination != null ? destination : destinationLookup)
                + ", destinationType=" + destinationType + ", subscriptionDurability=" + subscriptionDurability
                + ", subscriptionName=" + subscriptionName + "]";
    }
}
