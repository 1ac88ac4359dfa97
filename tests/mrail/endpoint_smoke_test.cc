#include <gtest/gtest.h>

#include "endpoint_pair.h"
#include "pattern.h"

namespace railyard::mrail {
namespace {

using testing::endpoint_options;
using testing::EndpointGroup;
using testing::fill_pattern;
using testing::first_mismatch;

TEST(EndpointSmoke, OneMessageEachSize) {
  EndpointGroup group({endpoint_options(2), endpoint_options(2)});
  for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{70000},
                           std::size_t{300000}, std::size_t{5000000}}) {
    std::vector<std::byte> out(std::max<std::size_t>(size, 1));
    std::vector<std::byte> in(size + 10);
    fill_pattern(std::span(out).first(size), size);
    Request send;
    Request recv;
    ASSERT_TRUE(group[1].recv(recv, group.ids[1][0], in.data(), in.size(), 5).ok());
    ASSERT_TRUE(group[0].send(send, group.ids[0][1], out.data(), size, 5).ok());
    ASSERT_TRUE(group.run_until([&] { return send.done() && recv.done(); })) << size;
    ASSERT_TRUE(send.status().ok()) << send.status().to_string();
    ASSERT_TRUE(recv.status().ok()) << recv.status().to_string();
    EXPECT_EQ(recv.length(), size);
    EXPECT_EQ(first_mismatch(std::span(in).first(size), size), std::nullopt) << size;
  }
}

}  // namespace
}  // namespace railyard::mrail
