/* Compiled by dcbnl_layout_test.go against the kernel uapi headers. Prints
 * sizes, offsets and example encodings of the dcbnl structs and of one
 * RTM_SETDCB message body, so the Go encoder is checked against the C
 * compiler's idea of the layout, not against our own reading of it. */
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

static void hex(const char *name, const void *p, size_t n) {
	const unsigned char *b = p;
	printf("%s ", name);
	for (size_t i = 0; i < n; i++) printf("%02x", b[i]);
	printf("\n");
}

static size_t put_attr(unsigned char *buf, size_t off, unsigned short type, const void *data, size_t len) {
	struct nlattr *a = (struct nlattr *)(buf + off);
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (data) memcpy(buf + off + NLA_HDRLEN, data, len);
	return off + NLA_ALIGN(NLA_HDRLEN + len);
}

int main(void) {
	printf("size ieee_pfc %zu\n", sizeof(struct ieee_pfc));
	printf("off ieee_pfc.pfc_en %zu\n", offsetof(struct ieee_pfc, pfc_en));
	printf("off ieee_pfc.mbc %zu\n", offsetof(struct ieee_pfc, mbc));
	printf("off ieee_pfc.delay %zu\n", offsetof(struct ieee_pfc, delay));
	printf("off ieee_pfc.requests %zu\n", offsetof(struct ieee_pfc, requests));
	printf("off ieee_pfc.indications %zu\n", offsetof(struct ieee_pfc, indications));
	printf("size ieee_ets %zu\n", sizeof(struct ieee_ets));
	printf("off ieee_ets.prio_tc %zu\n", offsetof(struct ieee_ets, prio_tc));
	printf("off ieee_ets.reco_prio_tc %zu\n", offsetof(struct ieee_ets, reco_prio_tc));
	printf("size dcb_app %zu\n", sizeof(struct dcb_app));
	printf("off dcb_app.protocol %zu\n", offsetof(struct dcb_app, protocol));
	printf("size dcbmsg %zu\n", sizeof(struct dcbmsg));
	printf("const RTM_GETDCB %d\n", RTM_GETDCB);
	printf("const RTM_SETDCB %d\n", RTM_SETDCB);
	printf("const DCB_CMD_IEEE_SET %d\n", DCB_CMD_IEEE_SET);
	printf("const DCB_CMD_IEEE_GET %d\n", DCB_CMD_IEEE_GET);
	printf("const DCB_CMD_IEEE_DEL %d\n", DCB_CMD_IEEE_DEL);
	printf("const DCB_CMD_GDCBX %d\n", DCB_CMD_GDCBX);
	printf("const DCB_CMD_SDCBX %d\n", DCB_CMD_SDCBX);
	printf("const DCB_ATTR_IFNAME %d\n", DCB_ATTR_IFNAME);
	printf("const DCB_ATTR_IEEE %d\n", DCB_ATTR_IEEE);
	printf("const DCB_ATTR_DCBX %d\n", DCB_ATTR_DCBX);
	printf("const DCB_ATTR_IEEE_PFC %d\n", DCB_ATTR_IEEE_PFC);
	printf("const DCB_ATTR_IEEE_ETS %d\n", DCB_ATTR_IEEE_ETS);
	printf("const DCB_ATTR_IEEE_APP_TABLE %d\n", DCB_ATTR_IEEE_APP_TABLE);
	printf("const DCB_ATTR_IEEE_APP %d\n", DCB_ATTR_IEEE_APP);
	printf("const IEEE_8021QAZ_APP_SEL_DSCP %d\n", IEEE_8021QAZ_APP_SEL_DSCP);
	printf("const DCB_CAP_DCBX_HOST %d\n", DCB_CAP_DCBX_HOST);
	printf("const DCB_CAP_DCBX_LLD_MANAGED %d\n", DCB_CAP_DCBX_LLD_MANAGED);
	printf("const DCB_CAP_DCBX_VER_IEEE %d\n", DCB_CAP_DCBX_VER_IEEE);

	struct ieee_pfc pfc;
	memset(&pfc, 0, sizeof pfc);
	pfc.pfc_cap = 8; pfc.pfc_en = 0x08; pfc.mbc = 1; pfc.delay = 0x1234;
	for (int i = 0; i < 8; i++) { pfc.requests[i] = 0x0102030405060700ULL + i; pfc.indications[i] = 1000 + i; }
	hex("bytes ieee_pfc", &pfc, sizeof pfc);

	struct ieee_ets ets;
	memset(&ets, 0, sizeof ets);
	ets.willing = 1; ets.ets_cap = 8; ets.cbs = 0;
	for (int i = 0; i < 8; i++) { ets.tc_tx_bw[i] = 10 + i; ets.tc_rx_bw[i] = 20 + i; ets.tc_tsa[i] = 2; ets.prio_tc[i] = i; ets.tc_reco_bw[i] = 30 + i; ets.tc_reco_tsa[i] = 0; ets.reco_prio_tc[i] = 7 - i; }
	hex("bytes ieee_ets", &ets, sizeof ets);

	struct dcb_app app = { .selector = IEEE_8021QAZ_APP_SEL_DSCP, .priority = 3, .protocol = 26 };
	hex("bytes dcb_app", &app, sizeof app);

	/* RTM_SETDCB body (after nlmsghdr): dcbmsg, IFNAME "eth0", IEEE{PFC}. */
	unsigned char buf[512];
	memset(buf, 0, sizeof buf);
	struct dcbmsg *d = (struct dcbmsg *)buf;
	d->dcb_family = AF_UNSPEC; d->cmd = DCB_CMD_IEEE_SET;
	size_t off = NLMSG_ALIGN(sizeof(struct dcbmsg));
	off = put_attr(buf, off, DCB_ATTR_IFNAME, "eth0", 5);
	size_t nest = off;
	off = put_attr(buf, off, DCB_ATTR_IEEE, NULL, 0);
	off = put_attr(buf, off, DCB_ATTR_IEEE_PFC, &pfc, sizeof pfc);
	((struct nlattr *)(buf + nest))->nla_len = off - nest;
	hex("msg setpfc", buf, off);

	/* RTM_SETDCB body: IEEE{APP_TABLE{APP, APP}} with DSCP 26->3, 46->5. */
	memset(buf, 0, sizeof buf);
	d = (struct dcbmsg *)buf;
	d->dcb_family = AF_UNSPEC; d->cmd = DCB_CMD_IEEE_SET;
	off = NLMSG_ALIGN(sizeof(struct dcbmsg));
	off = put_attr(buf, off, DCB_ATTR_IFNAME, "eth0", 5);
	nest = off;
	off = put_attr(buf, off, DCB_ATTR_IEEE, NULL, 0);
	size_t tbl = off;
	off = put_attr(buf, off, DCB_ATTR_IEEE_APP_TABLE, NULL, 0);
	struct dcb_app a2 = { .selector = IEEE_8021QAZ_APP_SEL_DSCP, .priority = 5, .protocol = 46 };
	off = put_attr(buf, off, DCB_ATTR_IEEE_APP, &app, sizeof app);
	off = put_attr(buf, off, DCB_ATTR_IEEE_APP, &a2, sizeof a2);
	((struct nlattr *)(buf + tbl))->nla_len = off - tbl;
	((struct nlattr *)(buf + nest))->nla_len = off - nest;
	hex("msg setapp", buf, off);
	return 0;
}
