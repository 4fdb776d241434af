// Helpers of the header tests: serialise and read back, the bytes on the wire, and "this call
// aborts" (NS_ABORT_MSG) checked in a child process.
#ifndef MRCSIM_TESTS_MODELS_HEADER_TEST_HELPERS_H
#define MRCSIM_TESTS_MODELS_HEADER_TEST_HELPERS_H

#include "ns3/packet.h"

#include <catch2/catch.hpp>

#include <csignal>
#include <cstdio>
#include <functional>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace mrcsim::test
{

using ns3::Create;
using ns3::Packet;
using ns3::Ptr;

// Serialise h into an empty packet, check the size, and deserialise it into a fresh object.
template<typename T>
T
RoundTrip(const T& h)
{
  Ptr<Packet> p = Create<Packet>();
  p->AddHeader(h);
  REQUIRE(p->GetSize() == h.GetSerializedSize());
  T out;
  REQUIRE(p->RemoveHeader(out) == h.GetSerializedSize());
  REQUIRE(p->GetSize() == 0);
  return out;
}

template<typename T>
std::vector<uint8_t>
Bytes(const T& h)
{
  Ptr<Packet> p = Create<Packet>();
  p->AddHeader(h);
  std::vector<uint8_t> b(p->GetSize());
  p->CopyData(b.data(), b.size());
  return b;
}

// True when fn ends the process with SIGABRT (what NS_ABORT_MSG does); run in a child.
inline bool
Aborts(const std::function<void()>& fn)
{
  pid_t pid = fork();
  if (pid == 0)
  {
    // Catch2's SIGABRT handler is inherited: restore the default so the abort reaches the
    // parent, and silence the expected message.
    std::signal(SIGABRT, SIG_DFL);
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    fn();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

} // namespace mrcsim::test

#endif
